"""``baseline:``: the settings the application runs with today, measured right after the default.

A mapping of parameters to values (e.g. the striping a Darshan log recorded); parameters not named keep
their default, re-evaluated when it follows a named one (``mpiio.cb_nodes: min(lustre.stripe_count, ...)``).
Each value is checked against the space bound to the target, and the whole configuration against the
system's rules; a parameter that is not searched on this target is refused, so a typo never
goes unnoticed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from autotune.errors import ConfigError
from autotune.space import BoundSpace, Config, Expr, fixed_value


def baseline_config(space: BoundSpace, raw: Mapping[str, Any] | None) -> Config | None:
    """The full configuration of ``baseline:`` (defaults for the rest), or None when there is none."""
    if not raw:
        return None
    config: Config = dict(space.default_config())
    active = {p.name: p for p in space.active}
    for name, value in raw.items():
        v = fixed_value(str(name), value, "baseline")
        if name in space.fixed:
            if space.fixed[name] != v:
                raise ConfigError(f"baseline.{name}: {value!r} differs from the space's fixed value {space.fixed[name]!r}")
            continue
        if name not in active:
            raise ConfigError(f"baseline.{name}: not searched on this target (searched: {', '.join(active) or 'none'})")
        if not active[name].contains(v):
            raise ConfigError(f"baseline.{name}: {value!r} is outside the space ({active[name].describe()})")
        config[str(name)] = v
    for spec in space.spec.params:  # defaults that follow other parameters (Cray: aggregators = stripe count)
        if spec.name in raw or spec.name not in active or not isinstance(spec.default, Expr):
            continue
        try:
            value = spec.default.evaluate({**space.context, **config})
        except ConfigError:
            continue
        if active[spec.name].contains(value):
            config[spec.name] = value
    violations = {k for k, v in space.violations(config).items() if v > 0}
    if violations:
        raise ConfigError(f"baseline: breaks the rule(s) {', '.join(sorted(violations))} on this target")
    return config

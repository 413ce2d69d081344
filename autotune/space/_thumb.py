"""Rules of thumb bound to a target: the configurations a user would try first, each with its public source.

The rules come from the target's tier (``Tier.rules_of_thumb``), then the site profile's file system (its
documented presets), then the MPI library (Open MPI's default io component). A rule sets the parameters it
names; every other parameter keeps its default, re-derived from the rule's settings as the MPI-IO layer derives
it (on Cray MPI-IO the aggregators follow the stripe count: ``min(lustre.stripe_count, app.ranks)``). A value
outside a parameter's range is brought to the nearest one inside it (the caps the system applies: a stripe count
above the OSTs is the OST count). A rule that names no parameter searched here, or whose configuration breaks a
rule of the space, is left out with a note; rules that give the same configuration run once, under both names,
and a rule that gives the default's configuration is the default.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from autotune.errors import ConfigError
from autotune.space._bound import BoundSpace, Config
from autotune.space._expr import Expr
from autotune.space._params import BoundParam
from autotune.tiers import RuleOfThumb

OPEN_MPI_RULES = (
    RuleOfThumb("open-mpi-default-component", {"ompi.io": "ompio"},
                "Open MPI's default MPI-IO component, OMPIO (Open MPI documentation, the io framework; "
                "ompi_info --param io all)"),
)


@dataclass(frozen=True)
class Baseline:
    """One rule of thumb (or several that give the same configuration) on this target."""

    name: str  # the rules' names joined by " = "
    source: str  # their sources joined by "; "
    config: Config


def declared(space: BoundSpace) -> list[RuleOfThumb]:
    """The rules that concern this target, in order: the tier's, the site's, the MPI library's."""
    rules = [*space.fs.tier.rules_of_thumb, *space.fs.rules_of_thumb]
    if space.system.mpi_flavour == "openmpi":
        rules += OPEN_MPI_RULES
    return rules


def rules_of_thumb(space: BoundSpace) -> tuple[list[Baseline], list[str]]:
    """The rules of thumb to run on ``space`` (distinct, not the default), and one note per rule left out or
    merged (why)."""
    default = space.default_config()
    out: list[Baseline] = []
    notes: list[str] = []
    for rule in declared(space):
        try:
            if rule.when and not Expr(rule.when, f"rule of thumb {rule.name}.when").evaluate(space.context):
                continue  # not for this pattern (a preset for another file size)
            cfg = configuration(space, rule)
        except ConfigError as exc:
            notes.append(f"rule of thumb {rule.name}: left out: {exc}")
            continue
        if isinstance(cfg, str):
            notes.append(f"rule of thumb {rule.name}: left out: {cfg}")
            continue
        broken = [name for name, v in space.violations(cfg).items() if v > 0]
        if broken:
            notes.append(f"rule of thumb {rule.name}: left out: its configuration breaks rule {', '.join(broken)}")
            continue
        if cfg == default:
            notes.append(f"rule of thumb {rule.name}: the default configuration here (runs as the default)")
            continue
        same = next((i for i, b in enumerate(out) if b.config == cfg), None)
        if same is not None:
            b = out[same]
            out[same] = Baseline(f"{b.name} = {rule.name}", f"{b.source}; {rule.source}", b.config)
            notes.append(f"rule of thumb {rule.name}: the same configuration as {b.name} here (runs once)")
            continue
        out.append(Baseline(rule.name, rule.source, cfg))
    return out, notes


def configuration(space: BoundSpace, rule: RuleOfThumb) -> Config | str:
    """The full configuration ``rule`` gives on ``space``, or why it cannot run here."""
    active = {p.name: p for p in space.active}
    over: Config = {}
    for name, raw in rule.settings.items():
        if name in space.fixed:
            return f"{name} is fixed by the campaign ({space.fixed[name]!r})"
        p = active.get(name)
        if p is None:
            continue  # not searched on this target: the setting cannot act here or the campaign left it out
        value = raw if (p.type == "categorical" and not _numeric(p.choices)) or not isinstance(raw, str) \
            else Expr(raw, f"rule of thumb {rule.name}.settings.{name}").evaluate(space.context)
        snapped = nearest(p, value, space.defaults.get(name))
        if snapped is None:
            return f"{name} = {value!r} is not one of {p.describe()}"
        over[name] = snapped
    if not over:
        return "none of its settings (" + ", ".join(rule.settings) + ") is searched here"
    return {**rederived(space, over), **space.fixed}


def rederived(space: BoundSpace, over: Mapping[str, Any]) -> Config:
    """The space's defaults with ``over`` set, each later default evaluated again over the new values."""
    active = {p.name: p for p in space.active}
    cfg: Config = {}
    for spec in space.spec.params:
        p = active.get(spec.name)
        if p is None:
            continue
        if spec.name in over:
            cfg[spec.name] = over[spec.name]
            continue
        value: Any = space.defaults[spec.name]
        if isinstance(spec.default, Expr):
            try:
                value = spec.default.evaluate({**space.context, **space.defaults, **cfg, **space.fixed})
            except ConfigError:
                value = space.defaults[spec.name]
        cfg[spec.name] = nearest(p, value) if nearest(p, value) is not None else space.defaults[spec.name]
    return cfg


def nearest(p: BoundParam, value: Any, avoid: Any = None) -> Any:
    """``value`` brought into ``p``'s range (the nearest value inside it; pow2: the nearest power of two on the
    log scale; categorical numbers, e.g. the stripe counts a user listed: the nearest choice, on the log scale
    when all are positive, so a value beyond them is capped at the largest), or None for a choice the parameter
    does not have. Between two listed choices equally near, ``avoid`` (a rule's caller passes the default: a rule
    snapped onto the default is no baseline of its own: 2 nodes over listed stripe counts 1 and 4) loses, then the
    smaller wins."""
    if p.type == "categorical":
        if value in p.choices or not _numeric(p.choices) or not _numeric([value]):
            return value if value in p.choices else None
        nums = [float(c) for c in p.choices if isinstance(c, (int, float))]
        pick = min(nums, key=lambda c: (round(abs(math.log(c / value)), 12), c == avoid, c)) \
            if min(nums) > 0 and value > 0 else min(nums, key=lambda c: (abs(c - value), c == avoid, c))
        return next(c for c in p.choices if c == pick)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    if p.type == "pow2":
        e = round(math.log2(value)) if value > 0 else p.low
        return 1 << min(max(e, p.low), p.high)
    v = min(max(round(value), p.low), p.high)
    if not p.log and p.step > 1:
        v = p.low + round((v - p.low) / p.step) * p.step
        v = v if v <= p.high else v - p.step
    return v


def _numeric(values: Any) -> bool:
    return bool(values) and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                                for v in values)

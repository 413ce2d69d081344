"""A search space bound to one target: what is searched and fixed there, the rules that apply, derived figures."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, Protocol

from autotune.errors import ConfigError
from autotune.pattern import IOPattern
from autotune.space._catalogue import CATALOGUE
from autotune.space._expr import Expr, UnknownName
from autotune.space._params import BoundParam, ParamSpec, Scalar, alias_meaning, resolve_alias, show
from autotune.space._relevance import OMPIO_ONLY_SETTINGS, ROMIO_ONLY_SETTINGS
from autotune.space._rule import Rule
from autotune.systems import FileSystem, SystemProfile, dw_capacity
from autotune.tiers import DATAWARP, LUSTRE, RABBIT

Config = dict[str, Any]


class SpaceSpec(Protocol):
    """What binding reads of a search space as written (``SearchSpace`` is one; its ``bind`` builds here)."""

    @property
    def params(self) -> tuple[ParamSpec, ...]: ...

    @property
    def rules(self) -> tuple[Rule, ...]: ...

    @property
    def fixed(self) -> Mapping[str, Scalar]: ...


def context_env(system: SystemProfile, fs: FileSystem, pattern: IOPattern) -> dict[str, Any]:
    env: dict[str, Any] = {}
    for prefix, ns in (("system", system.namespace()), ("fs", fs.namespace()), ("app", pattern.as_dict())):
        env.update({f"{prefix}.{k}": v for k, v in ns.items()})
    return env


def aliased(spec: SpaceSpec, fixed: Mapping[str, Any], active: list[BoundParam], ctx: dict[str, Any]) -> list[str]:
    """One notice per value written as an alias (a stripe count of -1) and bound to the target's value."""
    written = {p.name: (*p.choices, p.default) for p in spec.params} | {n: (v,) for n, v in spec.fixed.items()}
    bound = {p.name for p in active} | set(fixed)
    out = []
    for name in sorted(bound & set(written)):
        for v in dict.fromkeys(x for x in written[name] if not isinstance(x, Expr)):
            meaning = alias_meaning(name, v)
            if meaning is not None:
                out.append(f"{name}: {v!r} is {meaning}: {resolve_alias(name, v, ctx)!r} on this target")
    return out


@dataclass
class BoundSpace:
    """A search space bound to one target: what is searched, what is fixed, what cannot act and why."""

    spec: SpaceSpec
    system: SystemProfile
    fs: FileSystem
    pattern: IOPattern
    context: dict[str, Any]
    active: list[BoundParam]
    defaults: Config
    fixed: Config
    notices: list[str]
    rules: list[Rule]
    # Open MPI: the io component when ``ompi.io`` is not set (the launch's selection), and the settings only ROMIO
    # receives (a command's MPI-IO hints travel in a ROMIO_HINTS file: for it every ``mpiio.*`` is ROMIO-only)
    io_default: str = "ompio"
    romio_only: tuple[str, ...] = ROMIO_ONLY_SETTINGS

    @classmethod
    def build(cls, spec: SpaceSpec, system: SystemProfile, fs: FileSystem, pattern: IOPattern) -> BoundSpace:
        ctx = context_env(system, fs, pattern)
        active: list[BoundParam] = []
        notices: list[str] = []
        defaults: Config = {}
        fixed: Config = {}
        for name, value in spec.fixed.items():
            if _acts(name, None, ctx):
                fixed[name] = resolve_alias(name, value, ctx)
            else:
                notices.append(f"{name}: fixed value not applied: {CATALOGUE[name].why_not} ({_target(fs, system)})")
        shadow: Config = {}  # defaults of parameters that cannot act here, for other defaults to refer to
        applicable = [r for r in spec.rules if r.when is None or r.when.evaluate(ctx)]
        probe = cls(spec, system, fs, pattern, ctx, [], {}, fixed, [], applicable)
        for name, value in fixed.items():
            bad = probe._unary_breaks(name, [value])
            if bad:
                raise ConfigError(f"{name}: fixed value {bad[0][0]!r} breaks rule {bad[0][1]}")
        for p in spec.params:
            scope = {**ctx, **shadow, **defaults, **fixed}
            if not _acts(p.name, p.when, ctx):
                acts = _acts(p.name, None, ctx)
                why = CATALOGUE[p.name].why_not if not acts else f"its condition {p.when.text!r} is false" if p.when else ""
                notices.append(f"{p.name}: not searched: {why} ({_target(fs, system)})")
                try:
                    shadow[p.name] = p.default.evaluate(scope) if isinstance(p.default, Expr) else p.default
                except ConfigError:
                    shadow.pop(p.name, None)
                continue
            bp = p.bind(scope)
            default = resolve_alias(p.name, p.default.evaluate(scope) if isinstance(p.default, Expr) else p.default, scope)
            if not bp.contains(default):
                raise ConfigError(f"{p.name}: default {default!r} is outside its range {bp.describe()} on this target")
            defaults[p.name] = default
            active.append(bp)
        notices += aliased(spec, fixed, active, ctx)
        names = {b.name for b in active} | set(fixed)
        implied = _implied(fs, system)
        rules = [r for r in spec.rules
                 if (r.when is None or r.when.evaluate(ctx)) and r.params <= names | implied]
        space = cls(spec, system, fs, pattern, ctx, active, defaults, fixed, notices, rules)
        space._check_rules()
        return space

    # --- configurations -------------------------------------------------------------------
    def env(self, config: Mapping[str, Any]) -> dict[str, Any]:
        """Flat names for rules: context, parameters, and derived figures (aggregators, BB capacity)."""
        env: dict[str, Any] = {**self.context, **config}
        env.setdefault("cray.cb_nodes_multiplier", 1)
        env.setdefault("cray.cb_write_lock_mode", 0)
        env.setdefault("mpiio.romio_no_indep_rw", "false")
        env.setdefault("mpiio.romio_cb_write", "automatic")
        env["derived.aggregators"] = aggregators(self.system, self.fs, self.pattern, config)
        if self.fs.tier is DATAWARP:
            pool = self.fs.pool(str(config.get("bb.pool")) if "bb.pool" in config else None)
            if "bb.nodes" not in env:  # the one default, as the hints and the model take it
                env["bb.nodes"] = DATAWARP.bb_nodes(config, self.fs, self.pattern)
            env.setdefault("bb.pool", pool.name)
            env.setdefault("bb.access_mode", "striped")
            private = env["bb.access_mode"] == "private"  # one grain per compute node (KAUST Shaheen II training)
            env["derived.bb_capacity"] = (dw_capacity(1, pool)[0] * self.pattern.nodes if private
                                          else dw_capacity(int(env["bb.nodes"]), pool)[0])
            env["derived.bb_pool_nodes"] = pool.nodes
        if self.fs.tier is RABBIT:
            env.setdefault("rabbit.type", RABBIT.default_type)
        if self.system.mpi_flavour == "openmpi":  # settings moved off their defaults, per Open MPI io component
            env.setdefault("ompi.io", self.io_default)
            env["derived.romio_only"] = self._moved(config, self.romio_only)
            env["derived.ompio_only"] = self._moved(config, OMPIO_ONLY_SETTINGS)
        return env

    def _moved(self, config: Mapping[str, Any], names: tuple[str, ...]) -> int:
        """How many of ``names`` ``config`` sets to something other than the space's default."""
        return sum(1 for n in names if n in config and (n not in self.defaults or config[n] != self.defaults[n]))

    def default_config(self) -> Config:
        return {**self.defaults, **self.fixed}

    def to_optuna(self, config: Mapping[str, Any]) -> dict[str, Any]:
        return {p.optuna_name: p.encode(config[p.name]) for p in self.active if p.name in config}

    def from_optuna(self, params: Mapping[str, Any]) -> Config:
        config: Config = dict(self.fixed)
        for p in self.active:
            if p.optuna_name in params:
                config[p.name] = p.decode(params[p.optuna_name])
        return config

    def distributions(self) -> dict[str, Any]:
        return {p.optuna_name: p.distribution() for p in self.active}

    def violations(self, config: Mapping[str, Any]) -> dict[str, float]:
        env = self.env(config)
        return {r.name: r.expr.violation(env) for r in self.rules}

    def feasible(self, config: Mapping[str, Any]) -> bool:
        return all(v <= 0 for v in self.violations(config).values())

    def refusal(self, config: object) -> str | None:
        """Why ``config`` (from a cache or a store: not trusted) is not a configuration of this space, or None.

        Every name the space searches must be set, and no other (but those it fixes, at their fixed value);
        every value must be in its range exactly as ``check --config`` takes a user's; every rule must hold."""
        if not isinstance(config, Mapping):
            return f"{type(config).__name__} is not a configuration"
        params = {p.name: p for p in self.active}
        for name, value in config.items():
            if name in self.fixed:
                if value != self.fixed[name] or isinstance(value, bool) != isinstance(self.fixed[name], bool):
                    return f"{name}={value!r}, but this space fixes it at {self.fixed[name]!r}"
            elif name not in params:
                return f"{name!r} is not searched here"
            elif not params[name].contains(value):
                return f"{name}={value!r} is not in the searched range ({params[name].describe()})"
        missing = sorted(set(params) - set(config))
        if missing:
            return f"it does not set {', '.join(missing)}"
        try:
            broken = sorted(k for k, v in self.violations(config).items() if v > 0)
        except (ConfigError, ArithmeticError, TypeError, ValueError) as exc:
            return f"its rules cannot be evaluated ({exc})"
        return f"it breaks the rule(s) {', '.join(broken)}" if broken else None

    def grid(self, max_values: int = 64) -> Iterator[Config]:
        """Every feasible configuration of the (thinned) grid: for exhaustive search of a model."""
        names = [p.name for p in self.active]
        for combo in itertools.product(*(p.values(max_values) for p in self.active)):
            config = {**self.fixed, **dict(zip(names, combo, strict=True))}
            if self.feasible(config):
                yield config

    def size(self, max_values: int = 64) -> int:
        n = 1
        for p in self.active:
            n *= len(p.values(max_values))
        return n

    def describe(self) -> list[str]:
        lines = [f"{p.name:28s} {p.describe():40s} default {p.show(self.defaults[p.name])}" for p in self.active]
        lines += [f"{n:28s} fixed = {show(n, v)}" for n, v in self.fixed.items()]
        return lines

    # --- validation ---------------------------------------------------------------------------
    def _check_rules(self) -> None:
        base = self.default_config()
        for r in self.rules:
            try:
                r.expr.evaluate(self.env(base))
            except UnknownName as exc:
                raise ConfigError(f"rule {r.name}: unknown name {exc.name!r} in {r.expr.text!r}") from None
            if not r.params and r.expr.violation(self.env(base)) > 0:  # no parameter can fix it: the target cannot
                ctx = ", ".join(f"{n} = {self.context[n]}" for n in sorted(r.expr.names) if n in self.context)
                raise ConfigError(f"{_target(self.fs, self.system)}: the pattern breaks rule {r.name} ({r.expr.text}; "
                                  f"{ctx}): {r.why}")
        for i, p in enumerate(self.active):
            values = p.values()
            bad = self._unary_breaks(name=p.name, values=values)
            if len(bad) == len(values):
                raise ConfigError(f"{p.name}: no value in {p.describe()} satisfies rule {bad[0][1]}")
            if bad:
                shown = ", ".join(str(v) for v, _ in bad[:4]) + (", ..." if len(bad) > 4 else "")
                if p.type == "categorical" and self.defaults.get(p.name) not in {v for v, _ in bad}:
                    # a choice that can never run on this target is left out of the search (not proposed)
                    self.active[i] = replace(p, choices=tuple(v for v in p.choices if v not in {b for b, _ in bad}))
                    self.notices.append(f"{p.name}: {shown} break rule {bad[0][1]}; left out of the search")
                else:
                    self.notices.append(f"{p.name}: {shown} break rule {bad[0][1]}; never run")

    def _unary_breaks(self, name: str, values: list[Any]) -> list[tuple[Any, str]]:
        """Values of ``name`` that break a rule naming only that parameter, with the rule explained."""
        out: list[tuple[Any, str]] = []
        for v in values:
            for r in self.rules:
                if r.params != {name}:
                    continue
                cfg = {**self.default_config(), name: v}
                if r.expr.violation(self.env(cfg)) > 0:
                    ctx = ", ".join(f"{n} = {self.context[n]}" for n in sorted(r.expr.names) if n in self.context)
                    out.append((v, f"{r.name} ({r.expr.text}{'; ' + ctx if ctx else ''})"))
                    break
        return out


def aggregators(system: SystemProfile, fs: FileSystem, pattern: IOPattern, config: Mapping[str, Any]) -> int:
    """Aggregators the MPI-IO layer will use: cb_nodes x multiplier, or the system's default (Cray MPI-IO: one
    per stripe on Lustre, one per BB node on DataWarp; ROMIO: one per node), at most one per rank.

    A cap, not an error: an aggregator is an MPI rank, and ROMIO does not install a ``cb_nodes`` hint above the
    number of processes (``ADIOI_GEN_SetInfo``, adio/common/ad_hints.c), so striping a file over more OSTs
    than there are ranks is legal and gets one aggregator per rank (the performance model does the same)."""
    cb = config.get("mpiio.cb_nodes")
    if cb is None:
        if system.is_cray and fs.tier is LUSTRE:
            cb = config.get("lustre.stripe_count", fs.default_stripe_count)
        elif system.is_cray and fs.tier is DATAWARP:
            cb = DATAWARP.bb_nodes(config, fs, pattern)
        else:
            cb = pattern.nodes
    mult = config.get("cray.cb_nodes_multiplier", 1) if system.is_cray else 1
    return min(int(cb) * int(mult), pattern.ranks)


def _implied(fs: FileSystem, system: SystemProfile) -> set[str]:
    """Parameters a rule may name without searching them: BoundSpace.env gives them their defaults."""
    names = {"cray.cb_nodes_multiplier", "cray.cb_write_lock_mode", "mpiio.romio_no_indep_rw", "mpiio.romio_cb_write"}
    if system.mpi_flavour == "openmpi":
        names.add("ompi.io")
    if fs.tier is RABBIT:
        return names | {"rabbit.type"}
    return names | ({"bb.nodes", "bb.pool", "bb.access_mode"} if fs.tier is DATAWARP else set())


def _acts(name: str, when: Expr | None, ctx: Mapping[str, Any]) -> bool:
    if not Expr(CATALOGUE[name].acts_when).evaluate(ctx):
        return False
    return bool(when.evaluate(ctx)) if when is not None else True


def _target(fs: FileSystem, system: SystemProfile) -> str:
    return f"file system {fs.name!r} is {fs.kind}, MPI {system.mpi_flavour}"

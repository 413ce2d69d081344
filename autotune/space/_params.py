"""Parameter definitions (int, pow2, categorical) and their binding to one target."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from optuna.distributions import BaseDistribution, CategoricalDistribution, IntDistribution

from autotune._yaml import check_keys, expect, plain_text
from autotune.errors import ConfigError
from autotune.space._catalogue import CATALOGUE, check_choice
from autotune.space._expr import Expr
from autotune.units import format_size, parse_size

TYPES = ("int", "pow2", "categorical")
_KEYS = frozenset({"type", "low", "high", "log", "step", "choices", "default", "when", "help"})
Scalar = int | float | str | bool


def _num_or_expr(value: Any, where: str, size: bool) -> int | Expr:
    if isinstance(value, bool):
        raise ConfigError(f"{where}: {value!r} is not a number")
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        try:
            return parse_size(value, where) if size else int(value)
        except (ConfigError, ValueError):
            return Expr(value, where)
    raise ConfigError(f"{where}: {value!r} is not a number or an expression")


def _number(name: str, value: Any, where: str) -> Any:
    """A categorical value of a count or a size as the number it is (a size may be written ``4MiB``); other kinds'
    values unchanged. A count that is not an integer is a one-line error naming it."""
    kind = CATALOGUE[name].kind
    if kind == "size":
        return parse_size(value, where)
    if kind == "int" and (isinstance(value, bool) or not isinstance(value, int)):
        raise ConfigError(f"{where}: {value!r} is not an integer ({name} is a count)")
    least = CATALOGUE[name].minimum
    if kind == "int" and least is not None and value < least and alias_meaning(name, value) is None:
        raise ConfigError(f"{where}: {value!r} is below {least} (expected an integer >= {least})")
    return value


def show(name: str, value: Any) -> str:
    """``value`` of parameter ``name`` as a user writes it (a size in units: ``4MiB``)."""
    known = CATALOGUE.get(name)
    sized = known is not None and known.kind == "size" and isinstance(value, int) and not isinstance(value, bool)
    return format_size(value) if sized else str(value)


def _alias(name: str, value: Any) -> tuple[int, str, str] | None:
    """The catalogue's alias entry (value, expression, meaning) that ``value`` of ``name`` is, or None."""
    known = CATALOGUE.get(name)
    if known is None or isinstance(value, bool):
        return None
    return next((a for a in known.aliases if a[0] == value), None)


def resolve_alias(name: str, value: Any, env: dict[str, Any]) -> Any:
    """``value`` of parameter ``name`` as the system reads it on the target (``env``: its ``fs.*`` names): a value
    the system documents as another one (``KnownParameter.aliases``: a stripe count of -1 is every OST) becomes
    that one; any other value is itself."""
    alias = _alias(name, value)
    return value if alias is None else Expr(alias[1], f"{name} = {alias[0]}").evaluate(env)


def alias_meaning(name: str, value: Any) -> str | None:
    """What the system documents ``value`` of ``name`` to mean when it is an alias (None: it is not one)."""
    alias = _alias(name, value)
    return None if alias is None else alias[2]


@dataclass(frozen=True)
class ParamSpec:
    """A parameter as written in a search-space file (bounds and default may be expressions)."""

    name: str
    type: str
    low: int | Expr | None = None
    high: int | Expr | None = None
    log: bool = False
    step: int = 1
    choices: tuple[Scalar, ...] = ()
    default: Scalar | Expr | None = None
    when: Expr | None = None

    @classmethod
    def parse(cls, name: str, data: Any, where: str) -> ParamSpec:
        if name not in CATALOGUE:
            raise ConfigError(f"{where}: unknown parameter {name!r} (known: {', '.join(sorted(CATALOGUE))})")
        d = check_keys(data, _KEYS, f"{where}.{name}", required=("type",))
        ptype = d["type"]
        if ptype not in TYPES:
            raise ConfigError(f"{where}.{name}.type: {ptype!r} is not one of {', '.join(TYPES)}")
        size = CATALOGUE[name].kind == "size"
        w = f"{where}.{name}"
        when = Expr(d["when"], f"{w}.when") if "when" in d else None
        if ptype == "categorical":
            choices = expect(d.get("choices"), list, f"{w}.choices", "a list of choices")
            if not choices:
                raise ConfigError(f"{w}.choices: at least one choice is required")
            for c in choices:
                expect(c, (int, float, str, bool), f"{w}.choices", "a list of numbers or strings")
                if isinstance(c, str):  # a choice becomes a hint value in files, environments and snippets
                    plain_text(c, f"{w}.choices", "a choice")
                why = check_choice(name, c, searched=True)
                if why is not None:
                    raise ConfigError(f"{w}.choices: {why}")
            choices = [_number(name, c, f"{w}.choices") for c in choices]
            default = _number(name, d.get("default", choices[0]), f"{w}.default")
            if default not in choices:
                raise ConfigError(f"{w}.default: {default!r} is not one of the choices {choices}")
            return cls(name, ptype, choices=tuple(choices), default=default, when=when)
        if "low" not in d or "high" not in d:
            raise ConfigError(f"{w}: a {ptype} parameter needs 'low' and 'high'")
        step = d.get("step", 1)
        expect(step, int, f"{w}.step", "a positive integer")
        log = bool(expect(d.get("log", False), bool, f"{w}.log", "true or false"))
        default_raw = d.get("default", d["low"])
        return cls(
            name, ptype, low=_num_or_expr(d["low"], f"{w}.low", size), high=_num_or_expr(d["high"], f"{w}.high", size),
            log=log, step=step, default=_num_or_expr(default_raw, f"{w}.default", size), when=when,
        )

    def bind(self, env: dict[str, Any]) -> BoundParam:
        """Resolve bounds against the target's names (``fs.*``, ``app.*``, ``system.*``)."""
        def val(x: int | Expr | None, what: str) -> int:
            v = x.evaluate(env) if isinstance(x, Expr) else x
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise ConfigError(f"{self.name}.{what}: {x!r} gives {v!r}, expected a number")
            return int(v)

        if self.type == "categorical":
            choices = tuple(resolve_alias(self.name, c, env) for c in self.choices)
            for written, bound in zip(self.choices, choices, strict=True):
                if bound != written and choices.count(bound) > 1:
                    raise ConfigError(f"{self.name}.choices: {written!r} is {alias_meaning(self.name, written)}, "
                                      f"{bound!r} on this target, which is listed too (list it once)")
            return BoundParam(self.name, self.type, choices=choices)
        low, high = val(self.low, "low"), val(self.high, "high")
        if low < 1 and (self.type == "pow2" or self.log):
            raise ConfigError(f"{self.name}.low: {low} must be >= 1 for a {'pow2' if self.type == 'pow2' else 'log'} range")
        if high < low:
            raise ConfigError(f"{self.name}: high {high} is below low {low} on this target")
        minimum = CATALOGUE[self.name].minimum
        if minimum is not None and (self.type != "pow2" and low < minimum):
            raise ConfigError(f"{self.name}.low: {low} is below {minimum} (the smallest meaningful value)")
        if self.type == "pow2":
            lo_e, hi_e = math.ceil(math.log2(low)), math.floor(math.log2(high))
            if hi_e < lo_e:
                raise ConfigError(f"{self.name}: no power of two between {low} and {high}")
            return BoundParam(self.name, self.type, low=lo_e, high=hi_e)
        return BoundParam(self.name, self.type, low=low, high=high, log=self.log, step=self.step)


@dataclass(frozen=True)
class BoundParam:
    """A parameter with concrete bounds; pow2 parameters are searched over their exponent."""

    name: str
    type: str
    low: int = 0
    high: int = 0
    log: bool = False
    step: int = 1
    choices: tuple[Scalar, ...] = ()

    @property
    def optuna_name(self) -> str:
        return f"log2({self.name})" if self.type == "pow2" else self.name

    def distribution(self) -> BaseDistribution:
        if self.type == "categorical":
            return CategoricalDistribution(self.choices)
        if self.type == "pow2":
            return IntDistribution(self.low, self.high)
        return IntDistribution(self.low, self.high, log=self.log, step=1 if self.log else self.step)

    def decode(self, raw: Any) -> Scalar:
        return (1 << int(raw)) if self.type == "pow2" else raw

    def encode(self, value: Any) -> Any:
        if self.type == "pow2":
            if not isinstance(value, int) or value < 1 or value & (value - 1):
                raise ConfigError(f"{self.name}: {value!r} is not a power of two")
            return int(math.log2(value))
        return value

    def contains(self, value: Any) -> bool:
        if self.type == "categorical":  # true is not 1: a bool matches only a bool choice
            return any(c == value and isinstance(c, bool) == isinstance(value, bool) for c in self.choices)
        if isinstance(value, bool) or not isinstance(value, int):
            return False
        if self.type == "pow2":
            return value > 0 and not value & (value - 1) and self.low <= math.log2(value) <= self.high
        return self.low <= value <= self.high and (self.log or (value - self.low) % self.step == 0)

    def count(self) -> int:
        """How many values the parameter takes (``values`` may list fewer: a thinned range)."""
        if self.type == "categorical":
            return len(self.choices)
        if self.type == "pow2":
            return self.high - self.low + 1
        return len(range(self.low, self.high + 1, 1 if self.log else self.step))

    def values(self, max_values: int = 64) -> list[Scalar]:
        """All values (for grids and exhaustive search); long int ranges are thinned log-uniformly."""
        if self.type == "categorical":
            return list(self.choices)
        if self.type == "pow2":
            return [1 << e for e in range(self.low, self.high + 1)]
        full = range(self.low, self.high + 1, 1 if self.log else self.step)
        if len(full) <= max_values:
            return list(full)
        vals = {self.low, self.high}
        v = self.low
        while v < self.high:
            vals.add(v)
            v *= 2
        return sorted(vals)

    def show(self, value: Any) -> str:
        """``value`` as a user writes it (a size in units: ``4MiB``)."""
        return show(self.name, value)

    def describe(self) -> str:
        if self.type == "categorical":
            return "{" + ", ".join(map(self.show, self.choices)) + "}"
        if self.type == "pow2":
            size = CATALOGUE[self.name].kind == "size"
            fmt = format_size if size else str
            return f"2^[{self.low}..{self.high}] = {fmt(1 << self.low)}..{fmt(1 << self.high)}"
        return f"[{self.low}..{self.high}]" + (" log" if self.log else "")

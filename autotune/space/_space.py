"""Search spaces as written: parameters, fixed settings and the system's rules (``bind`` fixes them to a target)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autotune._paths import available, find_named
from autotune._yaml import check_keys, expect, load_yaml, plain_text
from autotune.errors import ConfigError
from autotune.pattern import IOPattern
from autotune.space._bound import BoundSpace
from autotune.space._catalogue import CATALOGUE, check_choice
from autotune.space._params import ParamSpec, Scalar, alias_meaning
from autotune.space._rule import Rule, default_rules
from autotune.systems import FileSystem, SystemProfile
from autotune.units import parse_size

_SPACE_KEYS = frozenset({"name", "description", "parameters", "rules", "fixed"})


def fixed_value(name: str, value: Any, where: str) -> Scalar:
    if name not in CATALOGUE:
        raise ConfigError(f"{where}: unknown parameter {name!r} (known: {', '.join(sorted(CATALOGUE))})")
    known = CATALOGUE[name]
    if known.kind == "size":
        n = parse_size(value, f"{where}.{name}")
    elif known.kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{where}.{name}: {value!r} is not an integer")
        n = value
    else:
        expect(value, (str, int, bool), f"{where}.{name}", "a string or number")
        if isinstance(value, str):
            plain_text(value, f"{where}.{name}", "a value")
        why = check_choice(name, value)
        if why is not None:
            raise ConfigError(f"{where}.{name}: {why}")
        return value
    if known.minimum is not None and n < known.minimum and alias_meaning(name, n) is None:
        raise ConfigError(f"{where}.{name}: {value!r} is below {known.minimum} (expected an integer >= {known.minimum})")
    return n


@dataclass(frozen=True)
class SearchSpace:
    """A search space as written in ``search_spaces/<name>.yaml`` (not yet bound to a target)."""

    name: str
    params: tuple[ParamSpec, ...]
    rules: tuple[Rule, ...] = ()
    fixed: Mapping[str, Scalar] = field(default_factory=dict)
    description: str = ""

    @classmethod
    def parse(cls, data: Mapping[str, Any], where: str = "space", with_default_rules: bool = True) -> SearchSpace:
        d = check_keys(data, _SPACE_KEYS, where, required=("parameters",))
        params_raw = expect(d["parameters"], dict, f"{where}.parameters", "a mapping of parameters")
        params = tuple(ParamSpec.parse(n, v, f"{where}.parameters") for n, v in params_raw.items())
        fixed_raw = check_keys(d.get("fixed", {}), set(CATALOGUE), f"{where}.fixed")
        fixed = {n: fixed_value(n, v, f"{where}.fixed") for n, v in fixed_raw.items()}
        both = sorted(set(fixed) & {p.name for p in params})
        if both:
            raise ConfigError(f"{where}: {both[0]!r} is both fixed and searched; choose one")
        rules = list(default_rules()) if with_default_rules else []
        rules += [Rule.parse(r, f"{where}.rules[{i}]") for i, r in enumerate(d.get("rules") or [])]
        return cls(str(d.get("name", where)), params, tuple(rules), fixed, str(d.get("description", "")))

    def customise(self, only: list[str] | None = None, exclude: list[str] | None = None,
                  fixed: Mapping[str, Any] | None = None, parameters: Mapping[str, Any] | None = None,
                  where: str = "space") -> SearchSpace:
        """A campaign's edits: keep ``only``, drop ``exclude``, pin ``fixed``, add/replace ``parameters``."""
        names = {p.name for p in self.params}
        for n in list(only or []) + list(exclude or []):
            if n not in names:
                raise ConfigError(f"{where}: {n!r} is not a parameter of space {self.name!r} (has: {', '.join(sorted(names))})")
        fixed = check_keys(fixed, None, f"{where}.fixed")
        parameters = check_keys(parameters, None, f"{where}.parameters")
        new_fixed = dict(self.fixed)
        for n, v in fixed.items():
            new_fixed[n] = fixed_value(n, v, f"{where}.fixed")
        replaced = {n: ParamSpec.parse(n, v, f"{where}.parameters") for n, v in (parameters or {}).items()}
        params = [replaced.pop(p.name, p) for p in self.params]
        params += list(replaced.values())
        params = [p for p in params if (not only or p.name in only or p.name in (parameters or {}))
                  and p.name not in (exclude or []) and p.name not in (fixed or {})]
        return SearchSpace(self.name, tuple(params), self.rules, new_fixed, self.description)

    def bind(self, system: SystemProfile, fs: FileSystem, pattern: IOPattern) -> BoundSpace:
        return BoundSpace.build(self, system, fs, pattern)


def load_space(name: str, base: Path | None = None) -> SearchSpace:
    path = find_named("search_spaces", name, base)
    if path is None or path.stem == "rules":
        known = ", ".join(n for n in available("search_spaces") if n != "rules")
        raise ConfigError(f"space: {name!r} not found (known: {known}, or a path to a .yaml)")
    return SearchSpace.parse(load_yaml(path, "search space"), where=f"space {path.stem}")

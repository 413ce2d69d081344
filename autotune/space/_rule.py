"""System rules (``search_spaces/rules.yaml`` and a space's own ``rules:``): each must hold for every
configuration that is run."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autotune._paths import find_named
from autotune._yaml import check_keys, expect, load_yaml
from autotune.space._catalogue import CATALOGUE
from autotune.space._expr import Expr

_RULE_KEYS = frozenset({"name", "rule", "why", "when", "source"})


@dataclass(frozen=True)
class Rule:
    """A system rule: ``rule`` must hold for every configuration that is run."""

    name: str
    expr: Expr
    why: str = ""
    when: Expr | None = None
    source: str = ""  # where the system enforces it (a manual, the MPI-IO source), for the docs' rule table

    @classmethod
    def parse(cls, data: Any, where: str) -> Rule:
        d = check_keys(data, _RULE_KEYS, where, required=("name", "rule"))
        when = Expr(str(d["when"]), f"{where}.when") if "when" in d else None
        return cls(str(d["name"]), Expr(str(d["rule"]), f"{where}.rule"), str(d.get("why", "")), when,
                   str(d.get("source", "")))

    @property
    def params(self) -> set[str]:
        return {n for n in self.expr.names if n in CATALOGUE}


def _load_rules(path: Path) -> list[Rule]:
    data = load_yaml(path, "rules file")
    d = check_keys(data, {"rules"}, str(path), required=("rules",))
    return [Rule.parse(r, f"{path.name}.rules[{i}]") for i, r in enumerate(expect(d["rules"], list, str(path), "a list"))]


def default_rules() -> list[Rule]:
    path = find_named("search_spaces", "rules")
    return _load_rules(path) if path else []

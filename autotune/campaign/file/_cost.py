"""Cost as a second objective (``objective.cost``): what a configuration's I/O costs in node-hours.

A trial's cost is that of one run of the tuned I/O: ``nodes x seconds`` compute node-hours plus
``bb.nodes x seconds`` burst-buffer node-hours (a Lustre target has none), folded into one figure in
compute node-hours by the exchange rate ("1 BB node-hour = x node-hours"). The exchange rate is the
campaign's ``objective.cost.exchange_rate`` (or ``--exchange-rate``), else the ratio of the system
profile's charge rates (``charge:``). The parts are stored per trial (user attribute ``cost``), so a
report can redraw the front and recommend under another exchange rate without running anything.

Recommending one trial of the Pareto front (time, cost): the cheapest at the exchange rate, or with
``within`` the cheapest whose time is within that fraction of the fastest trial's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from autotune._yaml import check_keys
from autotune.errors import ConfigError
from autotune.systems import SystemProfile

COST_KEYS = frozenset({"exchange_rate", "within"})
MAX_WITHIN = 10.0  # "within 1000% of the fastest": anything larger is a typo


@dataclass(frozen=True)
class CostObjective:
    """``objective.cost``: how node-hours and BB node-hours fold into one cost, and how to recommend."""

    exchange_rate: float          # compute node-hours one BB node-hour is worth
    within: float | None = None   # recommend the cheapest within this fraction of the fastest (None: the cheapest)
    rate_from: str = "campaign"   # where the exchange rate came from: campaign | system | command line
    unit: str = "node-hours"      # the site's accounting unit (system profile ``charge.unit``)
    unit_per_node_hour: float = 1.0  # the site's charge for one compute node-hour, in ``unit``
    unit_per_bb_node_hour: float = 1.0  # ... and for one BB node-hour (the profile's rates, whatever the exchange rate)

    def rule(self) -> dict[str, Any]:
        """What a study stores (user attribute ``cost``) so readers without the campaign recommend alike."""
        return {"exchange_rate": self.exchange_rate, "within": self.within, "rate_from": self.rate_from,
                "unit": self.unit, "unit_per_node_hour": self.unit_per_node_hour,
                "unit_per_bb_node_hour": self.unit_per_bb_node_hour}

    @classmethod
    def from_rule(cls, rule: dict[str, Any]) -> CostObjective:
        return cls(float(rule["exchange_rate"]), rule.get("within"), str(rule.get("rate_from", "campaign")),
                   str(rule.get("unit", "node-hours")), float(rule.get("unit_per_node_hour", 1.0)),
                   float(rule.get("unit_per_bb_node_hour", 1.0)))

    def charge(self, node_hours: float, bb_node_hours: float) -> float:
        """What the site charges, in ``unit``, at the system profile's rates."""
        return node_hours * self.unit_per_node_hour + bb_node_hours * self.unit_per_bb_node_hour

    def describe(self) -> str:
        how = (f"the cheapest within {self.within:.0%} of the fastest" if self.within is not None
               else "the cheapest")
        return f"{how} at 1 BB node-hour = {self.exchange_rate:g} node-hours ({self.rate_from})"


def rate_value(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < float("inf"):
        raise ConfigError(f"{where}: {value!r} is not a number >= 0 (node-hours per BB node-hour)")
    return float(value)


def within_value(value: Any, where: str) -> float:
    """``within``: a fraction (0.1) or a percentage ("10%"), more than 0 and at most 1000%."""
    v: Any = value
    if isinstance(value, str) and value.strip().endswith("%"):
        try:
            v = float(value.strip()[:-1]) / 100
        except ValueError:
            v = value
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v <= MAX_WITHIN:
        raise ConfigError(f"{where}: {value!r} is not a fraction in (0, {MAX_WITHIN:g}] or a percentage like '10%'")
    return float(v)


def parse_cost(value: Any, system: SystemProfile, where: str = "objective.cost") -> CostObjective | None:
    """``objective.cost``: true (the profile's rates), or a mapping {exchange_rate, within}; false/absent: None."""
    if value is None or value is False:
        return None
    if value is not True and not isinstance(value, dict):
        raise ConfigError(f"{where}: {value!r} is not true/false or a mapping {{exchange_rate, within}}")
    d = {} if value is True else check_keys(value, COST_KEYS, where)
    ch = system.charge
    if "exchange_rate" in d:
        rate, origin = rate_value(d["exchange_rate"], f"{where}.exchange_rate"), "campaign"
    else:
        rate, origin = ch.exchange_rate, f"system {system.name} charge rates"
    within = within_value(d["within"], f"{where}.within") if d.get("within") is not None else None
    return CostObjective(rate, within, origin, ch.unit, ch.node_hour, ch.bb_node_hour)


@dataclass(frozen=True)
class CostParts:
    """One run of a configuration: its I/O time and the node-hours it holds."""

    seconds: float
    nodes: int
    bb_nodes: int

    @property
    def node_hours(self) -> float:
        return self.nodes * self.seconds / 3600.0

    @property
    def bb_node_hours(self) -> float:
        return self.bb_nodes * self.seconds / 3600.0

    def cost(self, exchange_rate: float) -> float:
        """Compute node-hours plus BB node-hours at ``exchange_rate``."""
        return self.node_hours + exchange_rate * self.bb_node_hours

    def as_dict(self, exchange_rate: float) -> dict[str, float]:
        return {"seconds": self.seconds, "nodes": self.nodes, "bb_nodes": self.bb_nodes,
                "node_hours": self.node_hours, "bb_node_hours": self.bb_node_hours,
                "cost": self.cost(exchange_rate), "exchange_rate": exchange_rate}

    @classmethod
    def from_attr(cls, attr: dict[str, Any]) -> CostParts:
        return cls(float(attr["seconds"]), int(attr["nodes"]), int(attr["bb_nodes"]))


@dataclass(frozen=True)
class Point:
    """A completed trial in (value, time, cost) terms."""

    number: int
    value: float        # the campaign's metric (objective 0)
    parts: CostParts

    def cost(self, exchange_rate: float) -> float:
        return self.parts.cost(exchange_rate)


def pareto(points: Sequence[Point], exchange_rate: float, maximize: bool) -> list[Point]:
    """The non-dominated points in (metric, cost at ``exchange_rate``), sorted by cost (cheapest first)."""
    def key(p: Point) -> tuple[float, float]:
        return (-p.value if maximize else p.value, p.cost(exchange_rate))

    front = [p for p in points if not any(_dominates(key(q), key(p)) for q in points)]
    seen: set[tuple[float, float]] = set()
    out = []
    for p in sorted(front, key=lambda p: (p.cost(exchange_rate), key(p)[0], p.number)):
        if key(p) not in seen:  # equal points: the first trial stands for them
            seen.add(key(p))
            out.append(p)
    return out


def _dominates(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return a[0] <= b[0] and a[1] <= b[1] and a != b


def recommend(points: Sequence[Point], rule: CostObjective, maximize: bool) -> Point | None:
    """The trial to recommend: the cheapest at the exchange rate (among those within ``rule.within`` of the
    best metric value, when given). Ties go to the better metric value, then the earlier trial."""
    if not points:
        return None
    pool = list(points)
    if rule.within is not None:
        best = max(p.value for p in pool) if maximize else min(p.value for p in pool)
        pool = [p for p in pool if (p.value * (1 + rule.within) >= best if maximize
                                    else p.value <= best * (1 + rule.within))]
    return min(pool, key=lambda p: (p.cost(rule.exchange_rate), -p.value if maximize else p.value, p.number))

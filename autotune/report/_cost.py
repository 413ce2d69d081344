"""The cost side of a report (campaigns with ``objective.cost``): each target's Pareto front, the
recommendation under the exchange rate, and what the speed costs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from autotune.campaign import CostObjective, Point, pareto, recommend
from autotune.report._figures import TargetFigures


@dataclass(frozen=True)
class Pick:
    """A trial of one target."""

    target: TargetFigures
    point: Point

    def cost(self, rule: CostObjective) -> float:
        return self.point.cost(rule.exchange_rate)


def shared_rule(figs: list[TargetFigures]) -> CostObjective | None:
    """The rule of the comparison: the first burst-buffer target's (its exchange rate is the one that acts),
    else the first target's; None unless every target has ``objective.cost``."""
    if not figs or any(f.cost_rule is None for f in figs):
        return None
    bb = [f for f in figs if f.tier.bills_bb_nodes]
    return (bb or figs)[0].cost_rule


def _all(figs: list[TargetFigures]) -> list[Pick]:
    return [Pick(f, p) for f in figs for p in f.points]


def picks(figs: list[TargetFigures], rule: CostObjective) -> tuple[Pick, Pick] | None:
    """(the recommended trial over all targets under ``rule``, the fastest trial over all targets)."""
    every = _all(figs)
    if not every:
        return None
    maximize = figs[0].maximize
    by_point = {id(p.point): p for p in every}
    rec = recommend([p.point for p in every], rule, maximize)
    assert rec is not None
    fastest = (max if maximize else min)(every, key=lambda p: (p.point.value, -p.point.number))
    return by_point[id(rec)], fastest


def _trial(p: Pick, rule: CostObjective, label: bool = True) -> str:
    bb = f", {p.point.parts.bb_nodes} BB node(s)" if p.point.parts.bb_nodes else ""
    return (f"{p.target.label + ' ' if label else ''}trial {p.point.number}: {p.point.parts.seconds:.4g} s and "
            f"{p.cost(rule):.4g} node-hours per run{bb}")


def _charge(a: Pick, b: Pick, rule: CostObjective) -> str:
    """How much more ``a`` is charged than ``b`` at the site's own rates (system profile ``charge:``)."""
    pa, pb = a.point.parts, b.point.parts
    d = rule.charge(pa.node_hours, pa.bb_node_hours) - rule.charge(pb.node_hours, pb.bb_node_hours)
    return f"; at the site's rates {d:+.4g} {rule.unit}"


def cost_sentence(figs: list[TargetFigures], rule: CostObjective) -> str:
    """The answer with its price: what to use under the rule, what the fastest trial costs more, and how
    each other target's own recommendation compares (time and cost)."""
    got = picks(figs, rule)
    if got is None:
        return "No target has a completed trial with a cost yet: run the campaigns first."
    rec, fast = got
    out = [f"Under {rule.describe()}, use {_trial(rec, rule)}."]
    if fast.point is not rec.point:
        dt = 1 - fast.point.parts.seconds / rec.point.parts.seconds
        dc = fast.cost(rule) - rec.cost(rule)
        out.append(f"The fastest is {_trial(fast, rule)}: {dt:.1%} less time for {dc:+.4g} node-hours per run "
                   f"({dc / rec.cost(rule):+.1%}{_charge(fast, rec, rule)}).")
    for f in figs:
        other = recommend(f.points, rule, f.maximize) if f is not rec.target else None
        if other is None:
            continue
        o = Pick(f, other)
        dt = rec.point.parts.seconds / other.parts.seconds - 1
        dc = rec.cost(rule) - o.cost(rule)
        verdict = ("faster and cheaper" if dt <= 0 and dc <= 0 else "faster, and the speed costs more" if dt <= 0
                   else "slower but cheaper" if dc <= 0 else "slower and dearer")
        out.append(f"Against {f.label}'s own pick ({_trial(o, rule, label=False)}), the pick is {verdict}: {dt:+.1%} time, "
                   f"{dc:+.4g} node-hours per run ({dc / o.cost(rule):+.1%}{_charge(rec, o, rule)}).")
    return " ".join(out)


def cost_data(figs: list[TargetFigures], rule: CostObjective) -> dict[str, Any]:
    """report.json's ``cost``: the rule, each target's front and recommendation, the overall pick."""
    x = rule.exchange_rate

    def point(p: Point) -> dict[str, Any]:
        return {"trial": p.number, "value": p.value, "seconds": p.parts.seconds, "cost": p.cost(x),
                "node_hours": p.parts.node_hours, "bb_node_hours": p.parts.bb_node_hours, "bb_nodes": p.parts.bb_nodes}

    out: dict[str, Any] = {"rule": rule.describe(), "exchange_rate": x, "within": rule.within, "unit": rule.unit,
                           "unit_per_node_hour": rule.unit_per_node_hour,
                           "unit_per_bb_node_hour": rule.unit_per_bb_node_hour, "targets": {}}
    for f in figs:
        r = recommend(f.points, rule, f.maximize)
        out["targets"][f.label] = {"front": [point(p) for p in pareto(f.points, x, f.maximize)],
                                   "recommended": point(r) if r is not None else None}
    got = picks(figs, rule)
    if got is not None:
        out["recommended"] = {"target": got[0].target.label, **point(got[0].point)}
        out["fastest"] = {"target": got[1].target.label, **point(got[1].point)}
    return out


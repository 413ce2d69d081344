"""The report's numbers as plain data (report.json), and their shared formatting."""

from __future__ import annotations

from typing import Any

import numpy as np

from autotune.campaign import confirmation_lines, fmt_value
from autotune.report._cost import cost_data
from autotune.report._figures import TargetFigures
from autotune.report._stats import Comparison, bootstrap_value, interval, jitter
from autotune.tiers import TIERS


def bills_bb(t: dict[str, Any]) -> bool:
    """Whether a target's data counts burst-buffer node-hours (its tier bills them: DataWarp)."""
    return t.get("fs_kind") in TIERS and TIERS.get(t["fs_kind"]).bills_bb_nodes


def fmt_number(x: float | None, unit: str = "") -> str:
    if x is None:
        return "–"
    return f"{x:.4g}" + (f" {unit}" if unit else "")


def fmt_change(x: float | None) -> str:
    return "–" if x is None else f"{x * 100:+.1f}%"


def config_lines(config: dict[str, Any]) -> list[str]:
    return [f"{k} = {fmt_value(k, v)}" for k, v in sorted(config.items())]


def target_data(f: TargetFigures, seed: int = 0) -> dict[str, Any]:
    """One target's figures: best, repetitions, spread, default, speedup, cost."""
    rng = np.random.default_rng(seed)
    d: dict[str, Any] = {
        "label": f.label, "campaign": f.campaign, "study": f.study, "storage": f.storage,
        "tracking_uri": f.tracking_uri, "app": f.app, "system": f.system, "filesystem": f.filesystem,
        "fs_kind": f.fs_kind, "metric": f.metric, "unit": f.unit, "direction": f.direction, "repeats": f.repeats,
        "aggregate": f.aggregate,
        "trials_run": len(f.trials), "trials_failed": sum(r.state == "FAIL" for r in f.trials),
        "nodes": f.nodes, "ranks": f.ranks, "node_hours": f.node_hours, "bb_node_hours": f.bb_node_hours,
        "run_seconds": sum(r.wall_s for r in f.trials), "importance": f.importance,
        "production_jobs": sum(bool(r.service) for r in f.trials),
        "production_explored": sum(r.service == "explore" for r in f.trials),
    }
    if f.best is not None and f.best.value is not None:
        lo, hi = interval(bootstrap_value(f.best, f.aggregate, f.maximize, rng))
        d.update(best_trial=f.best.number, best_value=f.best.value, best_repetitions=list(f.best.repetitions),
                 best_interval=[lo, hi], best_spread=jitter(f), best_config=f.best.config,
                 best_is_default=f.best_is_default, hints_text=f.hints_text, best_bb_nodes=f.best.bb_nodes,
                 best_stripe_count=f.best.stripe_count)
    if f.default is not None and f.default.value is not None:
        d.update(default_trial=f.default.number, default_value=f.default.value,
                 default_repetitions=list(f.default.repetitions), default_config=f.default.config)
    if f.speedup is not None:
        d["speedup_over_default"] = f.speedup
    d["searched"] = list(f.searched)
    if f.confirmation:  # measured interleaved with the default and the best rule of thumb: what the report leads with
        d.update(confirmed=True, claim=f.claim, confirmation_lines=confirmation_lines(f.confirmation, f.metric),
                 confirmed_gain=confirmed_gain(f.confirmation))
    else:
        d.update(confirmed=False, confirm_command=f"autotune tune {f.source or f.campaign + '.yaml'}")
    return d


def report_data(cmp: Comparison, figs: list[TargetFigures]) -> dict[str, Any]:
    """Everything the report states, as JSON-ready data (what the tests recompute)."""
    out: dict[str, Any] = {
        "metric": cmp.metric, "unit": cmp.unit, "direction": "maximize" if cmp.maximize else "minimize",
        "targets": [target_data(f) for f in figs],
        "winner": cmp.winner.label if cmp.winner else None,
        "versus": [v.__dict__ for v in cmp.versus],
        "jitter": cmp.jitter, "significant": cmp.significant, "recommendation": cmp.recommendation,
        "side_by_side": False,  # campaigns are measured each at its own time: only within one is it interleaved
        "confirmed": all(f.confirmation for f in figs if f.best is not None),
    }
    if cmp.cost_rule is not None:  # objective.cost: the fronts, the pick, and the speed-only sentence
        out.update(cost=cost_data(figs, cmp.cost_rule), speed=cmp.speed)
    return out


def front_lines(data: dict[str, Any]) -> list[str]:
    """The cost section as plain lines: the rule, then each target's Pareto front (cheapest first)."""
    cost = data.get("cost")
    if not cost:
        return []
    out = [f"Recommended under {cost['rule']}; the speed alone: {data.get('speed', '')}"]
    for label, t in cost["targets"].items():
        rec = (t["recommended"] or {}).get("trial")
        out.append(f"{label}: Pareto front of {len(t['front'])} trial(s), cheapest first")
        out += [f"  trial {p['trial']}: {p['seconds']:.4g} s, {p['cost']:.4g} node-hours "
                f"({p['node_hours']:.4g} + {p['bb_node_hours']:.4g} BB node-hours, {p['bb_nodes']} BB node(s))"
                + ("  <- recommended" if p["trial"] == rec else "") for p in t["front"]]
    return out


def versus_text(v: dict[str, Any], maximize: bool) -> str:
    """One line of the side by side: ``a`` against ``b`` with the bootstrap interval of the margin."""
    what = "more bandwidth" if maximize else "less time"
    return (f"{v['a']} ({v['a_kind']}, {v['a_value']:.4g}) vs {v['b']} ({v['b_kind']}, {v['b_value']:.4g}): "
            f"{v['advantage'] * 100:+.1f}% {what} (95% interval {v['low'] * 100:+.1f}% to {v['high'] * 100:+.1f}%)")


def confirmation_text(t: dict[str, Any]) -> list[str]:
    """A target's confirmation as lines (or that it is unconfirmed, with the command that confirms it)."""
    if t.get("confirmed"):
        return list(t["confirmation_lines"])
    return [f"not confirmed: the best trial is the search's best of N (overstated); run `{t['confirm_command']}` "
            "(objective.confirm above 0) for the confirmation: the best configurations, the best rule of thumb and "
            "the default re-measured interleaved"]


def confirmed_gain(conf: dict[str, Any]) -> dict[str, Any] | None:
    """The recommendation's confirmed gain over the default, {margin, low, high} (None: the defaults are kept)."""
    if conf.get("recommends_rule") and conf.get("rule"):
        r = conf["rule"]
        return {"margin": r["margin"], "low": r["low"], "high": r["high"]}
    if conf.get("winner") == "default" or conf.get("decision") not in ("recommend", ""):
        return None
    return {"margin": conf.get("margin"), "low": conf.get("low"), "high": conf.get("high")}


def gain_cell(t: dict[str, Any]) -> str:
    """The table's cell of the confirmed gain: '+65.0% (+2.3% to +166.0%)', 'defaults kept' or 'unconfirmed'."""
    if not t.get("confirmed"):
        return "unconfirmed"
    g = t.get("confirmed_gain")
    return "defaults kept" if g is None else f"{fmt_change(g['margin'])} ({fmt_change(g['low'])} to {fmt_change(g['high'])})"

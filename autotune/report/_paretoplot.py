"""The Pareto-front plot of campaigns with ``objective.cost``: time per run against cost per run."""

from __future__ import annotations

from autotune.campaign import CostObjective, pareto, recommend
from autotune.report._figures import TargetFigures
from autotune.report._svg import COLORS, empty, plt, to_svg


def pareto_plot(figs: list[TargetFigures], rule: CostObjective) -> str:
    """Every trial (dots), each target's front (line) and its recommended trial (star), at ``rule``'s rate."""
    fig, ax = plt.subplots(figsize=(7.5, 3.8))
    x = rule.exchange_rate
    for i, f in enumerate(figs):
        col = COLORS[i % len(COLORS)]
        if not f.points:
            continue
        ax.scatter([p.parts.seconds for p in f.points], [p.cost(x) for p in f.points], s=14, color=col, alpha=0.35,
                   label=f"{f.label} trials")
        front = sorted(pareto(f.points, x, f.maximize), key=lambda p: p.parts.seconds)
        ax.plot([p.parts.seconds for p in front], [p.cost(x) for p in front], "-o", color=col, ms=4, lw=1.5,
                label=f"{f.label} Pareto front")
        rec = recommend(f.points, rule, f.maximize)
        if rec is not None:
            ax.scatter([rec.parts.seconds], [rec.cost(x)], marker="*", s=160, color=col, edgecolors="k", zorder=4,
                       label=f"{f.label} recommended (trial {rec.number})")
    if not ax.collections:
        empty(ax, "no completed trial with a cost yet")
    else:
        ax.set_xlabel("I/O time per run (s)")
        ax.set_ylabel(f"cost per run (node-hours, 1 BB node-hour = {x:g})")
        ax.legend(fontsize=7, loc="best")
    ax.set_title(f"Time against cost per target (recommended: {rule.describe()})", fontsize=9)
    return to_svg(fig)

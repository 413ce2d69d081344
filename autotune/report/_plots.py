"""The report's plots, as inline SVG text (matplotlib, no display, no network)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from autotune._registry import Registry
from autotune.measure import aggregate_label
from autotune.report._figures import TargetFigures, TrialRow
from autotune.report._paretoplot import pareto_plot
from autotune.report._stats import Comparison, bootstrap_value, interval
from autotune.report._svg import COLORS, Figure, MaxNLocator, empty, plt, to_svg
from autotune.tiers import DATAWARP, LUSTRE


def _ylabel(f: TargetFigures) -> str:
    return f"{f.metric} ({f.unit})" if f.unit else f.metric


def history(figs: list[TargetFigures]) -> str:
    """Each trial's value (its campaign's aggregate of N) and the best-so-far line, every target on one axis."""
    fig, ax = plt.subplots(figsize=(7.5, 3.6))
    for i, f in enumerate(figs):
        col = COLORS[i % len(COLORS)]
        done = [r for r in f.trials if r.value is not None]
        if not done:
            continue
        xs = [r.number for r in done]
        ys = [float(r.value or 0.0) for r in done]
        ax.scatter(xs, ys, s=16, color=col, alpha=0.6, label=f"{f.label} trials")
        best = np.maximum.accumulate(ys) if f.maximize else np.minimum.accumulate(ys)
        ax.step(xs, best, where="post", color=col, lw=2, label=f"{f.label} best so far")
        if f.default is not None and f.default.value is not None:
            ax.scatter([f.default.number], [f.default.value], marker="s", s=50, facecolors="none", edgecolors=col,
                       lw=1.5, label=f"{f.label} default")
    return _over_trials(fig, ax, figs, "trial", "no completed trial yet", "Optimisation history")


def repetitions(figs: list[TargetFigures]) -> str:
    """Every repetition of every trial (dots) and its range (bar): the jitter behind each trial's value."""
    fig, axes = plt.subplots(len(figs), 1, figsize=(7.5, 2.4 * len(figs)), squeeze=False)
    for i, (f, ax) in enumerate(zip(figs, axes[:, 0], strict=True)):
        col = COLORS[i % len(COLORS)]
        rows = [r for r in f.trials if r.ok_reps]
        for r in rows:
            reps = r.ok_reps
            ax.vlines(r.number, min(reps), max(reps), color=col, lw=2, alpha=0.5)
            ax.scatter([r.number] * len(reps), reps, s=9, color=col)
        if f.best is not None and f.best.ok_reps:
            ax.scatter([f.best.number] * len(f.best.ok_reps), f.best.ok_reps, s=30, marker="*", color="k",
                       label="best trial", zorder=3)
            ax.legend(fontsize=7, loc="best")
        if not rows:
            empty(ax, "no repetitions yet")
        ax.set_title(f"{f.label}: repetitions per trial", fontsize=9)
        ax.set_ylabel(_ylabel(f), fontsize=8)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes[-1, 0].set_xlabel("trial")
    fig.tight_layout()
    return to_svg(fig)


def importance(figs: list[TargetFigures]) -> str:
    """fANOVA parameter importance per target (optuna.importance)."""
    fig, axes = plt.subplots(1, len(figs), figsize=(3.8 * len(figs), 2.8), squeeze=False)
    for i, (f, ax) in enumerate(zip(figs, axes[0], strict=True)):
        if not f.importance:
            empty(ax, "too few varied trials\nfor importance")
        else:
            names = list(f.importance)[::-1]
            ax.barh(names, [f.importance[n] for n in names], color=COLORS[i % len(COLORS)])
            ax.set_xlim(0, 1)
            ax.set_xlabel("importance")
        ax.set_title(f.label, fontsize=9)
    fig.suptitle("Parameter importance (fANOVA)")
    fig.tight_layout()
    return to_svg(fig)


def top_params(f: TargetFigures, k: int = 3) -> list[str]:
    """The parameters that matter most (by importance, else those that were varied)."""
    if f.importance:
        return list(f.importance)[:k]
    varied = [p for p in sorted({p for r in f.trials for p in r.config})
              if len({repr(r.config.get(p)) for r in f.trials}) > 1]
    return varied[:k]


def _numeric(values: list[object]) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def slices(figs: list[TargetFigures]) -> str:
    """The trial value against each parameter that matters (one row per target)."""
    k = max(1, max(len(top_params(f)) for f in figs))
    fig, axes = plt.subplots(len(figs), k, figsize=(3.2 * k, 2.6 * len(figs)), squeeze=False)
    for i, f in enumerate(figs):
        params = top_params(f)
        done = [r for r in f.trials if r.value is not None]
        for j in range(k):
            ax = axes[i, j]
            if j >= len(params) or not done:
                empty(ax, "no varied parameter" if done else "no trial yet")
                continue
            p = params[j]
            if p.startswith("log2(") and p.endswith(")"):  # Optuna's name for a pow2 parameter
                p = p[len("log2("):-1]
            xs = [r.config.get(p) for r in done]
            ys = [float(r.value or 0.0) for r in done]
            if _numeric(xs):
                nums = [float(x) for x in xs]  # type: ignore[arg-type]
                ax.scatter(nums, ys, s=14, color=COLORS[i % len(COLORS)], alpha=0.7)
                if min(nums) > 0 and max(nums) / min(nums) >= 4:
                    ax.set_xscale("log", base=2)
            else:
                cats = sorted({str(x) for x in xs})
                ax.scatter([cats.index(str(x)) for x in xs], ys, s=14, color=COLORS[i % len(COLORS)], alpha=0.7)
                ax.set_xticks(range(len(cats)), cats, fontsize=7)
            ax.set_xlabel(p, fontsize=8)
            if j == 0:
                ax.set_ylabel(f"{f.label}\n{f.metric}", fontsize=8)
    fig.suptitle("Slices: the value against the parameters that matter")
    fig.tight_layout()
    return to_svg(fig)


def _resource(f: TargetFigures) -> tuple[str, Callable[[TrialRow], int | None]]:
    if f.tier is DATAWARP:
        return "BB nodes", lambda r: r.bb_nodes
    if f.tier is LUSTRE:
        return "stripe count (OSTs)", lambda r: r.stripe_count
    return "MPI-IO aggregators", lambda r: r.aggregators


RESOURCE_PARAMS = {"BB nodes": "bb.nodes", "stripe count (OSTs)": "lustre.stripe_count",
                   "MPI-IO aggregators": "mpiio.cb_nodes"}


def searched_resource(f: TargetFigures) -> bool:
    """Whether the campaign searched the resource its scaling plot would draw (never a plot of a fixed value)."""
    return RESOURCE_PARAMS[_resource(f)[0]] in f.searched


def scaling(figs: list[TargetFigures]) -> str:
    """The value against the resource that scales the target: BB nodes, stripe count (or aggregators)."""
    fig, axes = plt.subplots(1, len(figs), figsize=(3.8 * len(figs), 3.0), squeeze=False)
    for i, (f, ax) in enumerate(zip(figs, axes[0], strict=True)):
        name, get = _resource(f)
        pts = [(x, float(r.value)) for r in f.trials if r.value is not None and (x := get(r)) is not None]
        if not searched_resource(f):
            empty(ax, f"{name}: not searched by this campaign")
        elif not pts:
            empty(ax, f"no {name} recorded")
        else:
            xs, ys = zip(*pts, strict=True)
            ax.scatter(xs, ys, s=16, color=COLORS[i % len(COLORS)], alpha=0.7)
            best_at: dict[int, float] = {}
            for x, y in pts:
                best_at[x] = max(best_at.get(x, y), y) if f.maximize else min(best_at.get(x, y), y)
            bx = sorted(best_at)
            ax.plot(bx, [best_at[x] for x in bx], color="k", lw=1, label="best at each count")
            if max(xs) / max(1, min(xs)) > 8:
                ax.set_xscale("log", base=2)
            ax.legend(fontsize=7)
            ax.set_xlabel(name)
            ax.set_ylabel(_ylabel(f), fontsize=8)
        ax.set_title(f.label, fontsize=9)
    fig.suptitle("Value against the target's resource count")
    fig.tight_layout()
    return to_svg(fig)


def _aggregates(figs: list[TargetFigures]) -> str:
    """'median of N', or each target's where they differ."""
    hows = sorted({f.aggregate for f in figs}) or ["median"]
    return " / ".join(aggregate_label(h) for h in hows)


def overview(cmp: Comparison, figs: list[TargetFigures]) -> str:
    """Tuned and default per target (each campaign's aggregate of N), with 95% bootstrap intervals over the
    repetitions."""
    fig, ax = plt.subplots(figsize=(7.5, 3.0))
    rng = np.random.default_rng(0)
    labels: list[str] = []
    for i, f in enumerate(figs):
        for kind, row, hatch in (("default", f.default, "//"), ("tuned", f.best, "")):
            if row is None or row.value is None:
                continue
            lo, hi = interval(bootstrap_value(row, f.aggregate, f.maximize, rng))
            y = len(labels)
            ax.barh(y, row.value, color=COLORS[i % len(COLORS)], alpha=0.5 if kind == "default" else 0.9,
                    hatch=hatch, edgecolor="k", lw=0.5)
            ax.errorbar([row.value], [y], xerr=[[max(0.0, row.value - lo)], [max(0.0, hi - row.value)]],
                        color="k", capsize=3)
            ax.text(row.value, y, f"  {row.value:.4g}", va="center", fontsize=8)
            labels.append(f"{f.label} {kind}")
    if not labels:
        empty(ax, "no completed trial yet")
    else:
        ax.set_yticks(range(len(labels)), labels)
        ax.set_xlabel(f"{cmp.metric} ({cmp.unit}), {_aggregates(figs)}" if cmp.unit else cmp.metric)
    ax.set_title(f"Default and tuned, per target (bars: 95% bootstrap interval of the {_aggregates(figs)})")
    return to_svg(fig)


def production(figs: list[TargetFigures]) -> str:
    """Production jobs' trials in the order they ran (exploratory ones hollow) and the best known value
    at each job (dedicated campaign trials included): what a job running the best known configuration got."""
    fig, ax = plt.subplots(figsize=(7.5, 3.6))
    for i, f in enumerate(figs):
        col = COLORS[i % len(COLORS)]
        done = [r for r in f.trials if r.value is not None]
        jobs = [r for r in done if r.service]
        if not jobs:
            continue
        pick = max if f.maximize else min
        known = [pick(float(u.value or 0.0) for u in done if u.number <= r.number) for r in jobs]
        xs = list(range(1, len(jobs) + 1))
        ax.step(xs, known, where="post", color=col, lw=2, label=f"{f.label} best known")
        for kind, face in (("explore", "none"), ("", col)):
            pts = [(x, float(r.value or 0.0)) for x, r in zip(xs, jobs, strict=True) if (r.service == "explore") == bool(kind)]
            if pts:
                ax.scatter([x for x, _ in pts], [y for _, y in pts], s=22, facecolors=face, edgecolors=col,
                           label=f"{f.label} {'exploratory job' if kind else 'job on the best known / default'}")
    return _over_trials(fig, ax, figs, "production job (in the order they asked)", "no production job yet",
                        "Production jobs as trials")


def _over_trials(fig: Figure, ax: Any, figs: list[TargetFigures], xlabel: str, nothing: str, title: str) -> str:
    """Axes of a per-trial scatter (integer x, the metric's label, a legend), or a note when nothing is there."""
    if not ax.collections:
        empty(ax, nothing)
    else:
        ax.set_xlabel(xlabel)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylabel(_ylabel(figs[0]))
        ax.legend(fontsize=7, loc="best")
    ax.set_title(title)
    return to_svg(fig)


@dataclass(frozen=True)
class Plot:
    """One plot of the report: its ``caption``, ``draw(cmp, figs)`` giving SVG text, and ``shown(cmp, figs)``,
    whether the report has it (no plot of a parameter no campaign searched)."""

    caption: str
    draw: Callable[[Comparison, list[TargetFigures]], str]
    shown: Callable[[Comparison, list[TargetFigures]], bool] = lambda cmp, figs: True


def _pareto(cmp: Comparison, figs: list[TargetFigures]) -> str:
    assert cmp.cost_rule is not None  # shown only for campaigns with objective.cost
    return pareto_plot(figs, cmp.cost_rule)


PLOTS: Registry[Plot] = Registry("plot", base=Plot)
PLOTS.register("overview", Plot("Default and tuned per target", overview))
PLOTS.register("history", Plot("Optimisation history", lambda cmp, figs: history(figs)))
PLOTS.register("repetitions", Plot("Repetitions per trial", lambda cmp, figs: repetitions(figs)))
PLOTS.register("importance", Plot("Parameter importance", lambda cmp, figs: importance(figs)))
PLOTS.register("slices", Plot("Parameters that matter", lambda cmp, figs: slices(figs)))
PLOTS.register("scaling", Plot("Value against the searched resource (BB nodes, stripe count or aggregators)",
                               lambda cmp, figs: scaling(figs),
                               lambda cmp, figs: any(searched_resource(f) for f in figs)))
PLOTS.register("production", Plot("Production jobs as trials", lambda cmp, figs: production(figs),
                                  # production jobs as trials (autotune ask/tell)
                                  lambda cmp, figs: any(r.service for f in figs for r in f.trials)))
PLOTS.register("pareto", Plot("Pareto front: time against cost (objective.cost)", _pareto,
                              lambda cmp, figs: cmp.cost_rule is not None))


def caption(name: str) -> str:
    """The caption of plot ``name`` (the name itself for a plot not registered)."""
    return PLOTS.get(name).caption if name in PLOTS else name


def all_plots(cmp: Comparison, figs: list[TargetFigures]) -> dict[str, str]:
    """Every plot the report has, as SVG text, by name (in the order ``PLOTS`` lists them)."""
    return {name: plot.draw(cmp, figs) for name in PLOTS if (plot := PLOTS.get(name)).shown(cmp, figs)}

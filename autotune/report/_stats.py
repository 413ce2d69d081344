"""Side by side: which target wins, by how much, and whether that is more than the run-to-run jitter."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from autotune.campaign import CostObjective
from autotune.measure import BOOTSTRAP, advantage, interval
from autotune.report._cost import cost_sentence, shared_rule
from autotune.report._figures import TargetFigures, TrialRow


def aggregate_of(values: np.ndarray, how: str, maximize: bool) -> np.ndarray:
    """``autotune.measure.aggregate`` over the last axis (best, worst, median, mean)."""
    if how in ("best", "worst"):
        return values.max(axis=-1) if maximize == (how == "best") else values.min(axis=-1)
    return np.median(values, axis=-1) if how == "median" else np.mean(values, axis=-1)


def bootstrap_value(row: TrialRow, how: str, maximize: bool, rng: np.random.Generator,
                    n: int = BOOTSTRAP) -> np.ndarray:
    """Bootstrap distribution of a trial's value, the ``how`` of N (its repetitions resampled with replacement)."""
    reps = np.asarray(row.ok_reps or [row.value or 0.0], dtype=float)
    draws = rng.choice(reps, size=(n, reps.size), replace=True)
    return aggregate_of(draws, how, maximize)


def jitter(f: TargetFigures) -> float:
    """Run-to-run jitter of a target: the relative spread of its best trial's repetitions."""
    reps = f.best.ok_reps if f.best else []
    if len(reps) < 2 or max(reps) == 0:
        return 0.0
    return (max(reps) - min(reps)) / max(abs(v) for v in reps)


@dataclass(frozen=True)
class Versus:
    """Target ``a`` (tuned, or its default) against target ``b`` (tuned, or its default)."""

    a: str
    a_kind: str
    a_value: float
    b: str
    b_kind: str
    b_value: float
    advantage: float
    low: float
    high: float


@dataclass
class Comparison:
    """The targets ranked by their values (each campaign's aggregate of N), the winner's margin with its interval,
    the sentence."""

    metric: str
    unit: str
    maximize: bool
    ranking: list[TargetFigures]
    versus: list[Versus] = field(default_factory=list)
    jitter: float = 0.0
    significant: bool = False
    recommendation: str = ""
    speed: str = ""  # with objective.cost: the speed-only sentence (the recommendation then names the cost)
    cost_rule: CostObjective | None = None

    @property
    def winner(self) -> TargetFigures | None:
        return self.ranking[0] if self.ranking else None

    @property
    def margin(self) -> Versus | None:
        """The winner (tuned) against the runner-up (tuned)."""
        return self.versus[0] if self.versus else None


def _versus(a: TargetFigures, ar: TrialRow, ak: str, b: TargetFigures, br: TrialRow, bk: str, maximize: bool,
            rng: np.random.Generator) -> Versus:
    sa, sb = bootstrap_value(ar, a.aggregate, maximize, rng), bootstrap_value(br, b.aggregate, maximize, rng)
    adv = advantage(sa, sb, maximize)
    lo, hi = interval(adv)
    value = advantage(float(ar.value or 0.0), float(br.value or 0.0), maximize)
    return Versus(a.label, ak, float(ar.value or 0.0), b.label, bk, float(br.value or 0.0), value, lo, hi)


def compare(figs: list[TargetFigures], seed: int = 0) -> Comparison:
    """Rank the targets and quantify the winner's margin (bootstrap over the repetitions)."""
    metrics = {(f.metric, f.direction) for f in figs}
    if len(metrics) > 1:
        from autotune.errors import ConfigError

        raise ConfigError("compare: the campaigns optimise different objectives "
                          f"({', '.join(sorted(f'{d} {m}' for m, d in metrics))}): give them the same objective")
    first = figs[0]
    maximize = first.maximize
    done = [f for f in figs if f.best is not None and f.best.value is not None]
    ranking = sorted(done, key=lambda f: float(f.best.value or 0.0), reverse=maximize)  # type: ignore[union-attr]
    cmp = Comparison(first.metric, first.unit, maximize, ranking)
    rng = np.random.default_rng(seed)
    if len(ranking) >= 2:
        w, r = ranking[0], ranking[1]
        assert w.best is not None and r.best is not None
        cmp.versus.append(_versus(w, w.best, "tuned", r, r.best, "tuned", maximize, rng))
        for a in ranking:
            for b in ranking:
                if a is not b and a.best is not None and b.default is not None and b.default.value is not None:
                    cmp.versus.append(_versus(a, a.best, "tuned", b, b.default, "default", maximize, rng))
        cmp.jitter = max(jitter(w), jitter(r))
        m = cmp.versus[0]
        cmp.significant = m.low > 0 and m.advantage > cmp.jitter
    cmp.recommendation = recommendation(cmp, figs)
    cmp.cost_rule = shared_rule(figs)
    if cmp.cost_rule is not None:
        cmp.speed, cmp.recommendation = cmp.recommendation, cost_sentence(figs, cmp.cost_rule)
    return cmp


def _percent(x: float) -> str:
    return f"{x * 100:.1f}%"


def recommendation(cmp: Comparison, figs: list[TargetFigures]) -> str:
    """The answer in one sentence."""
    if not cmp.ranking:
        return "No target has a completed trial yet: run the campaigns first."
    w = cmp.winner
    assert w is not None and w.best is not None
    app = w.app
    confirmed = confirmed_lines(figs)
    if len(cmp.ranking) < 2:
        return confirmed
    m = cmp.margin
    assert m is not None
    what = "more bandwidth" if cmp.maximize else "less time"
    hints = "its default settings" if w.best_is_default else "the tuned hints below"
    apart = (" The campaigns were not measured side by side (each at its own time and load): the comparison across "
             "them is of the searches' best of N, not confirmed; each campaign's gain over its own default above is.")
    if cmp.significant:
        return (f"{confirmed}{apart} Across campaigns: use {w.label} for {app} with {hints}: {_percent(m.advantage)} {what} "
                f"than the best on {m.b} (95% bootstrap interval {_percent(m.low)} to {_percent(m.high)} of the searches' "
                f"bests, larger than the {_percent(cmp.jitter)} jitter between repetitions).")
    head = (f"{confirmed}{apart} Across campaigns: {w.label} and {m.b} are within the run-to-run jitter for {app} "
            f"({_percent(m.advantage)} {what}, 95% interval {_percent(m.low)} to {_percent(m.high)}, "
            f"jitter {_percent(cmp.jitter)}): "
            "either will do; ")
    cheap = cheaper_than(w, cmp.ranking[1], cmp.jitter)
    if cheap is None:
        return head + f"their costs are within the noise too, so take {w.label}."
    return head + f"{cheap} is the cheaper to run."


def confirmed_lines(figs: list[TargetFigures]) -> str:
    """Each campaign's confirmed recommendation (its gain over its own default and over its best rule of thumb,
    measured interleaved), or, unconfirmed, the search's best of N said to be so, with the command that confirms."""
    out = []
    for f in figs:
        if f.best is None:
            continue
        source = f.source or f"{f.campaign}.yaml"
        b, d = f.best.value, f.default.value if f.default is not None else None
        if f.confirmation and f.claim:
            out.append(f"{f.label}: confirmed {f.claim[0].lower()}{f.claim[1:]}.")
        elif b and d:
            ratio = b / d if f.maximize else d / b
            out.append(f"{f.label}: unconfirmed: the search's best of N is {ratio:.2f}x its default (the luckiest "
                       f"of many configurations: overstated); confirm with `autotune tune {source}` (objective.confirm "
                       "above 0: the confirmation runs when the budget is spent).")
        else:
            out.append(f"{f.label}: unconfirmed: no default measured; confirm with `autotune tune {source}`.")
    return " ".join(out)


COST_NOISE = 0.10  # node-hours come from measured wall times: a smaller relative difference is noise


def cheaper_than(w: TargetFigures, r: TargetFigures, noise: float) -> str | None:
    """The label of the runner-up when it is clearly cheaper than the winner (no burst buffer where the winner
    needs one, or node-hours lower by more than the jitter and 10%), else None: the winner is recommended."""
    if (w.bb_node_hours > 0) != (r.bb_node_hours > 0):
        return r.label if w.bb_node_hours > 0 else None
    if w.node_hours <= 0 or r.node_hours >= w.node_hours:
        return None
    return r.label if (w.node_hours - r.node_hours) / w.node_hours > max(noise, COST_NOISE) else None

"""Adaptive repetitions: repeat a configuration only while it can still beat the incumbent.

A repetition is a benchmark run: the expensive thing. Whatever the campaign's aggregate of N, a configuration whose best run
so far, even raised by the run-to-run noise margin (``margin / k`` after k runs), stays below the
incumbent cannot become the recommendation, so its further repetitions are skipped (racing). A
configuration that may win gets all N. The first configuration of a campaign (the default, usually
the slowest) gets one run: with no incumbent there is nothing to race, and it is measured again
only if it stays among the best. Before recommending, the top few are measured again
(``remeasure``) under current conditions, so a lucky or unlucky single run does not decide.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from autotune.measure import aggregate

# One run on a quiet shared file system is typically ~3% below the configuration's true speed (the
# median slowdown of the noise model, autotune.model.NoiseModel); the best of k runs about 3%/k.
DEFAULT_MARGIN = 0.03


@dataclass(frozen=True)
class RepetitionPolicy:
    """How many repetitions a trial gets: always ``max_repeats``, or adaptively (``adaptive=True``)."""

    max_repeats: int
    adaptive: bool = False
    margin: float = DEFAULT_MARGIN

    def more(self, values: Sequence[float | None], incumbent: float | None, maximize: bool) -> bool:
        """Whether to run another repetition after ``values`` (None = failed repetition)."""
        if len(values) >= self.max_repeats:
            return False
        ok = [v for v in values if v is not None]
        if not self.adaptive or not ok:
            return True
        if incumbent is None:
            return False  # the first configuration: one run, more only if it stays a contender (remeasure)
        margin = self.margin / len(ok)  # the best of k runs is closer to the truth: the margin shrinks as 1/k
        if maximize:
            return max(ok) * (1.0 + margin) >= incumbent
        return min(ok) <= incumbent * (1.0 + margin)


@dataclass
class Candidate:
    """A configuration (by key) with its repetitions so far."""

    key: int
    values: list[float]


def recommend(candidates: Sequence[Candidate], how: str, maximize: bool) -> Candidate | None:
    """The candidate with the best aggregate (``how``: best, median, mean, ...) of its repetitions."""
    scored = [(aggregate(c.values, how, maximize), c) for c in candidates if c.values]
    if not scored:
        return None
    pick = max if maximize else min
    return pick(scored, key=lambda t: t[0])[1]


def remeasure(candidates: Sequence[Candidate], measure: Callable[[int, int], list[float]], *, top: int = 3,
              repeats: int = 2, how: str = "best", maximize: bool = True) -> Candidate | None:
    """Measure the ``top`` candidates ``repeats`` more times (``measure(key, n)``) and recommend one.

    Candidates are ranked by their aggregate; each of the top ones gets ``repeats`` new runs appended,
    so they are compared on equal counts (fresh runs reveal one that was lucky earlier).
    """
    ranked = sorted((c for c in candidates if c.values), key=lambda c: aggregate(c.values, how, maximize),
                    reverse=maximize)
    chosen = [Candidate(c.key, list(c.values)) for c in ranked[:max(1, top)]]
    if len(chosen) > 1 and repeats > 0:
        for c in chosen:
            c.values.extend(measure(c.key, repeats))
    return recommend(chosen, how, maximize)

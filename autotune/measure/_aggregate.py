"""From a configuration's N repetitions to its value: the aggregate of N, and which one a target gets by default.

Where interference is one-sided (a shared parallel file system or burst buffer: other users' I/O only ever slows
a run down), the best of N is the run with the least interference: the ALCF Theta I/O best-practices guidance
("run several iterations; the best result usually represents least jitter"). Where the noise is two-sided
(node-local storage on a busy node: runs are faster and slower than typical, e.g. the page cache's write-back),
the best of N is the luckiest run, and the median of N is what a user's runs get; experiments/evaluation/confirm_eval.py
measures the shape of the noise on this project's recorded local surfaces.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from autotune._registry import Registry
from autotune.tiers import TIERS


@dataclass(frozen=True)
class Aggregate:
    """One way from N repetitions to a value: ``of(values, maximize)``; ``values`` is never empty."""

    of: Callable[[Sequence[float], bool], float]


AGGREGATES: Registry[Aggregate] = Registry("aggregate", "objective.aggregate", base=Aggregate)
AGGREGATES.register("best", Aggregate(lambda values, maximize: max(values) if maximize else min(values)))
AGGREGATES.register("median", Aggregate(lambda values, maximize: float(statistics.median(values))))
AGGREGATES.register("mean", Aggregate(lambda values, maximize: float(statistics.fmean(values))))
AGGREGATES.register("worst", Aggregate(lambda values, maximize: min(values) if maximize else max(values)))
ONE_SIDED_KINDS = frozenset(n for n in TIERS if TIERS.get(n).one_sided)  # hardware shared with other users' jobs


def default_aggregate(fs_kind: str) -> str:
    """The aggregate a target gets unless the campaign names one: best of N where interference is one-sided."""
    return "best" if fs_kind in ONE_SIDED_KINDS else "median"


def aggregate_label(how: str, n: int | None = None) -> str:
    """How a value was aggregated, in words: 'best of 3', 'median of N'."""
    return f"{how} of {n if n is not None else 'N'}"


def aggregate(values: Sequence[float], how: str, maximize: bool) -> float:
    """The ``how`` (best, median, mean, worst) of ``values``; best and worst follow the direction."""
    if not values:
        raise ValueError("no values to aggregate")
    if how not in AGGREGATES:
        raise ValueError(f"unknown aggregate {how!r}")
    return AGGREGATES.get(how).of(values, maximize)


def spread(values: Sequence[float]) -> float:
    """Relative spread (max - min) / max of the repetitions; 0 for fewer than two."""
    if len(values) < 2 or max(values) == 0:
        return 0.0
    return (max(values) - min(values)) / max(abs(v) for v in values)

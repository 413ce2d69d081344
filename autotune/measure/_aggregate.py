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
from collections.abc import Sequence

AGGREGATES = ("best", "median", "mean", "worst")
ONE_SIDED_KINDS = frozenset({"lustre", "gpfs", "datawarp", "rabbit"})  # shared by other users' jobs


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
    if how == "best":
        return max(values) if maximize else min(values)
    if how == "worst":
        return min(values) if maximize else max(values)
    if how == "median":
        return float(statistics.median(values))
    if how == "mean":
        return float(statistics.fmean(values))
    raise ValueError(f"unknown aggregate {how!r}")


def spread(values: Sequence[float]) -> float:
    """Relative spread (max - min) / max of the repetitions; 0 for fewer than two."""
    if len(values) < 2 or max(values) == 0:
        return 0.0
    return (max(values) - min(values)) / max(abs(v) for v in values)

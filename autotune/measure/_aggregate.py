"""Best-of-N and friends: from repetitions to a trial's value."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

AGGREGATES = ("best", "median", "mean", "worst")


def aggregate(values: Sequence[float], how: str, maximize: bool) -> float:
    """Best of N by default: on a shared file system the best run is the one least disturbed by others."""
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

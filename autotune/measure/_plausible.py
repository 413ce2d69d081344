"""Plausibility of a measured value: one absurd figure must not decide the recommendation.

A value is flagged, and then never becomes the best trial, the export or the ``hints`` answer, when

1. its magnitude exceeds ``ANY_MAX`` (1e15) in its canonical unit (MiB/s, s, ops/s, a score): no I/O
   figure comes near it, so it is a unit mistake, an overflow or a hostile report;
2. it is a bandwidth above ``BANDWIDTH_MAX`` (1e8 MiB/s, about 95 TiB/s): roughly ten times the fastest
   parallel file system in service (Frontier's Orion, about 10 TB/s, OLCF user documentation);
3. it is a bandwidth above ``CEILING_MARGIN`` (10) times the performance model's aggregate ceiling of the
   target (OSTs, OSS and client links on Lustre, the device on a local disk: ``model.physical_ceiling``),
   where the model knows one; the margin covers constants that are off by several times;
4. with at least ``MIN_TRIALS`` (3) completed trials, it is more than ``RATIO`` (100) times better than
   their median (bandwidths: above 100 x median; times: below median / 100). Published tuning gains
   of I/O settings are up to tens of times, so a hundredfold jump over the typical trial is a broken run,
   not a setting.

A flagged trial keeps its record (nothing is deleted) and is listed by ``status``; a real improvement of
that size is confirmed by measuring it again (``tune`` re-measures its top trials interleaved).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

from autotune.measure._sanity import value_problem
from autotune.measure._units import BANDWIDTH

ANY_MAX = 1e15
BANDWIDTH_MAX = 1e8
CEILING_MARGIN = 10.0
RATIO = 100.0
MIN_TRIALS = 3


def implausible(value: float, kind: str | None, maximize: bool, values: Sequence[float],
                ceiling: float | None = None) -> str | None:
    """Why ``value`` is not a plausible measurement (one line), or None.

    ``values`` are all completed trials' values (``value`` among them); ``ceiling`` is the model's aggregate
    bandwidth ceiling of the target in MiB/s (None: unknown)."""
    finite = [v for v in values if math.isfinite(v)]
    mid = statistics.median(finite) if len(finite) >= MIN_TRIALS else None
    return implausible_given(value, kind, maximize, mid, ceiling)


def implausible_given(value: float, kind: str | None, maximize: bool, median: float | None,
                      ceiling: float | None = None) -> str | None:
    """``implausible`` with the completed trials' ``median`` already known (None: fewer than ``MIN_TRIALS``)."""
    if not math.isfinite(value) or abs(value) > ANY_MAX:
        return f"{value:.4g} is beyond any I/O figure (|value| > {ANY_MAX:g})"
    impossible = value_problem(value, kind)
    if impossible is not None:  # stored before the rule, or told around it: never the best
        return impossible
    if kind == BANDWIDTH and value > BANDWIDTH_MAX:
        return f"{value:.4g} MiB/s is above {BANDWIDTH_MAX:g} MiB/s, ten times the fastest file system in service"
    if kind == BANDWIDTH and ceiling is not None and ceiling > 0 and value > CEILING_MARGIN * ceiling:
        return (f"{value:.4g} MiB/s is more than {CEILING_MARGIN:g} times the target's aggregate ceiling "
                f"({ceiling:.4g} MiB/s, the performance model's)")
    if median is not None:
        if maximize and median > 0 and value > RATIO * median:
            return f"{value:.4g} is more than {RATIO:g} times the median of the trials ({median:.4g})"
        if not maximize and value >= 0 and median > 0 and value * RATIO < median:
            return f"{value:.4g} is less than 1/{RATIO:g} of the median of the trials ({median:.4g})"
    return None

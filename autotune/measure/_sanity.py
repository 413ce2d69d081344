"""Refusing impossible metric values: a NaN, an infinity or a negative bandwidth/time is a failed repetition."""

from __future__ import annotations

import math
import re

from autotune.measure._units import kind_from_name

# besides what `kind_from_name` calls a bandwidth or a time: sizes, rates, latencies (never below zero)
_NONNEGATIVE = re.compile(r"bandwidth|throughput|_s$|(^|_)(mib|gib|mb|gb|kib|bytes|iops|ops|seconds|secs|time|latency"
                          r"|duration|elapsed)($|_)", re.IGNORECASE)


def must_be_nonnegative(metric: str) -> bool:
    """True for a bandwidth, size, rate or time metric (by its name: ``bandwidth_mib_s``, ``seconds``, ...)."""
    return kind_from_name(metric) is not None or bool(_NONNEGATIVE.search(metric))


def metric_problem(metric: str, value: float | None) -> str | None:
    """Why ``value`` cannot be a measurement of ``metric`` (one line), or None when it can."""
    if value is None:
        return None
    if math.isnan(value):
        return f"metric {metric!r} is NaN"
    if math.isinf(value):
        return f"metric {metric!r} is {'+' if value > 0 else '-'}Infinity"
    if value < 0 and must_be_nonnegative(metric):
        return f"metric {metric!r} is negative ({value:g}): a bandwidth or a time cannot be"
    return None

"""Refusing impossible metric values: one rule for what a run may report and what ``tell`` may record.

A NaN or an infinity is never a measurement; neither is a subnormal float (non-zero but below 2.2e-308:
an underflow). A bandwidth must be at least ``BANDWIDTH_FLOOR``, one byte per second (in MiB/s, the
canonical unit); a time must be above ``TIME_FLOOR``, one nanosecond, the resolution of Linux's monotonic
clock (clock_getres(2)): nothing timed shorter was measured; a rate must be positive; any other metric
whose name says it counts bytes, operations or time must not be negative. A run reporting such a value
is a failed repetition, and ``tell`` refuses it in one line.
"""

from __future__ import annotations

import math
import re
import sys

from autotune.errors import ConfigError
from autotune.measure._units import BANDWIDTH, RATE, TIME, kind_from_name

BANDWIDTH_FLOOR = 1 / 2**20  # MiB/s: one byte per second
TIME_FLOOR = 1e-9            # s: one nanosecond

# besides what `kind_from_name` calls a bandwidth or a time: sizes, rates, latencies (never below zero)
_NONNEGATIVE = re.compile(r"bandwidth|throughput|_s$|(^|_)(mib|gib|mb|gb|kib|bytes|iops|ops|seconds|secs|time|latency"
                          r"|duration|elapsed)($|_)", re.IGNORECASE)


def must_be_nonnegative(metric: str) -> bool:
    """True for a bandwidth, size, rate or time metric (by its name: ``bandwidth_mib_s``, ``seconds``, ...)."""
    return kind_from_name(metric) is not None or bool(_NONNEGATIVE.search(metric))


def value_problem(value: float, kind: str | None) -> str | None:
    """Why ``value`` (in the canonical unit of ``kind``: MiB/s, s, ops/s) cannot be a measurement, or None."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return f"{'+' if value > 0 else '-'}Infinity"
    if kind in (BANDWIDTH, TIME, RATE) and value < 0:
        return f"negative ({value:g}): a {kind} cannot be"
    if value != 0 and abs(value) < sys.float_info.min:
        return f"{value:g}, a subnormal number (an underflow, not a measurement)"
    if kind == BANDWIDTH and not value >= BANDWIDTH_FLOOR:
        return f"{value:g} MiB/s: a bandwidth must be at least 1 byte/s ({BANDWIDTH_FLOOR:.3g} MiB/s)"
    if kind == TIME and not value > TIME_FLOOR:
        return f"{value:g} s: a time must be above 1 ns, the clock's resolution"
    if kind == RATE and not value > 0:
        return f"{value:g} ops/s: a rate must be positive"
    return None


def metric_problem(metric: str, value: float | None, kind: str | None = None) -> str | None:
    """Why ``value`` cannot be a measurement of ``metric`` (one line), or None when it can. ``kind``: the
    objective's (a bandwidth, a time, a rate; default: what the metric's name says)."""
    if value is None:
        return None
    why = value_problem(value, kind or kind_from_name(metric))
    if why is not None:
        return f"metric {metric!r} is {why}"
    if value < 0 and must_be_nonnegative(metric):
        return f"metric {metric!r} is negative ({value:g}): a bandwidth or a time cannot be"
    return None


def refuse_told(value: float, kind: str | None) -> None:
    """``tell``: a value no run may report (``value_problem``), or not above 0, is a one-line ConfigError."""
    why = value_problem(value, kind)
    if why is not None or not value > 0:
        raise ConfigError(f"tell: metric value {value!r} " + (f"is {why}" if why else "must be a finite number > 0"))

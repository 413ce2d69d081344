"""Advantages between configurations and bootstrap intervals (the report's comparisons; the confirmation's margins
are in ``_margin``)."""

from __future__ import annotations

from typing import Any

import numpy as np

BOOTSTRAP = 4000
LEVEL = 0.95


def advantage(a: Any, b: Any, maximize: bool) -> Any:
    """How much better ``a`` is than ``b`` (floats or arrays): +x = x*100% more bandwidth, or x*100% less time."""
    return a / b - 1.0 if maximize else (b - a) / b


def interval(samples: np.ndarray, level: float = LEVEL) -> tuple[float, float]:
    lo, hi = np.quantile(samples, [(1 - level) / 2, (1 + level) / 2])
    return float(lo), float(hi)

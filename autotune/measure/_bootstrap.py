"""Margins between configurations and their bootstrap intervals (shared by the campaign and the report)."""

from __future__ import annotations

from collections.abc import Sequence
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


def median_margin(a: Sequence[float], b: Sequence[float], maximize: bool, seed: int = 0,
                  n: int = BOOTSTRAP) -> tuple[float, float, float]:
    """The advantage of ``a``'s median over ``b``'s and its 95% bootstrap interval (each sample resampled)."""
    va, vb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    rng = np.random.default_rng(seed)
    ma = np.median(rng.choice(va, size=(n, va.size), replace=True), axis=1)
    mb = np.median(rng.choice(vb, size=(n, vb.size), replace=True), axis=1)
    lo, hi = interval(advantage(ma, mb, maximize))
    return float(advantage(np.median(va), np.median(vb), maximize)), lo, hi

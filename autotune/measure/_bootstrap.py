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


def paired_margin(a: Sequence[float | None], b: Sequence[float | None], maximize: bool, seed: int = 0,
                  n: int = BOOTSTRAP) -> tuple[float, float, float]:
    """Like ``median_margin`` for measurements taken in pairs (round r of ``a`` next to round r of ``b``): the
    median of the per-round advantages and its bootstrap interval over rounds, so drift common to a round
    cancels. Rounds where either failed are left out; no complete round gives (0, 0, 0)."""
    adv = np.asarray([advantage(x, y, maximize) for x, y in zip(a, b, strict=False)
                      if x is not None and y is not None and x > 0 and y > 0], dtype=float)
    if adv.size == 0:
        return 0.0, 0.0, 0.0
    rng = np.random.default_rng(seed)
    lo, hi = interval(np.median(rng.choice(adv, size=(n, adv.size), replace=True), axis=1))
    return float(np.median(adv)), lo, hi

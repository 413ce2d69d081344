"""Calibrating the model to a site: fit chosen constants to a handful of measured runs.

Each measurement is (pattern, configuration, measured seconds of the whole run). The fit minimises
the squared log-ratio of predicted to measured time over the named constants, in log space (so
constants stay positive and every run weighs the same whatever its duration), with scipy's
bounded least squares. Noise in the measurements is best removed first: use each trial's best of N.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from autotune._extras import require
from autotune.errors import ConfigError
from autotune.model._constants import Constants, constants_for
from autotune.model._predict import predict
from autotune.pattern import IOPattern
from autotune.systems import SystemProfile


@dataclass(frozen=True)
class MeasuredRun:
    """One measured run: what ran, with which configuration, and how long it took."""

    pattern: IOPattern
    config: Mapping[str, Any]
    seconds: float


@dataclass(frozen=True)
class FitResult:
    """Fitted constants, the full ``Constants``, and the residual log-error (root mean square)."""

    values: dict[str, float]
    constants: Constants
    rms_log_error: float


def fit_constants(measurements: Sequence[MeasuredRun], system: SystemProfile, names: Sequence[str],
                  filesystem: str | None = None, *, start: Constants | None = None,
                  bounds: tuple[float, float] = (1e-3, 1e3)) -> FitResult:
    """Fit the constants ``names`` (e.g. ``["ost_write_bw", "write_latency"]``) to ``measurements``.

    ``bounds`` limit each constant to ``start x [low, high]``. Needs at least as many measurements as
    constants. Returns the fitted values; put them under ``model:`` in the site's profile.
    """
    least_squares = require("scipy.optimize", "model", "fitting model constants").least_squares
    fs = system.filesystem(filesystem)
    base = start if start is not None else constants_for(system, fs)
    if len(measurements) < len(names):
        raise ConfigError(f"fit: {len(measurements)} measurement(s) cannot determine {len(names)} constant(s)")
    for n in names:
        if not isinstance(getattr(base, n, None), float):
            raise ConfigError(f"fit: {n!r} is not a numeric model constant")
    x0 = np.array([math.log(getattr(base, n)) for n in names])
    lo, hi = math.log(bounds[0]), math.log(bounds[1])

    def consts(x: np.ndarray) -> Constants:
        return base.with_(**{n: float(math.exp(v)) for n, v in zip(names, x, strict=True)})

    def residuals(x: np.ndarray) -> np.ndarray:
        c = consts(x)
        return np.array([math.log(predict(m.pattern, system, fs.name, m.config, constants=c).seconds / m.seconds)
                         for m in measurements])

    sol = least_squares(residuals, x0, bounds=(x0 + lo, x0 + hi), x_scale=1.0)
    fitted = consts(sol.x)
    rms = float(np.sqrt(np.mean(sol.fun**2))) if len(sol.fun) else 0.0
    return FitResult({n: getattr(fitted, n) for n in names}, fitted, rms)

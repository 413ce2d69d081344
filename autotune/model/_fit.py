"""Calibrating the model to a site: fit chosen constants to measured runs.

Each measurement is (pattern, configuration, measured value of ``metric``; ``seconds`` of the whole
run unless told). The fit minimises the squared log-ratio of predicted to measured values over the
named constants, in log space (so constants stay positive and every run weighs the same whatever its
duration), with scipy's bounded least squares. With ``prior_weight`` > 0 each constant's distance
from its start (the profile's value, in log units) is a residual too: a constant the runs do not
determine stays where the profile put it. The uncertainty of each constant comes from the Jacobian at
the solution (Gauss-Newton covariance, scaled by the residual variance), as a multiplicative factor.
Noise in the measurements is best removed first: use each trial's aggregate of N (objective.aggregate).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from autotune._extras import require
from autotune.errors import AutotuneError, ConfigError
from autotune.model._constants import Constants, constants_for, derived_stream
from autotune.model._phases import predict
from autotune.pattern import IOPattern
from autotune.systems import SystemProfile
from autotune.tiers import DATAWARP, LUSTRE, POSIX

# The constants fitted per target kind (``autotune model fit`` and the sampler's refit in the loop), the span
# each may move (x1/SPAN .. xSPAN of its start) and the pull toward the start (per constant, in log units).
FIT_NAMES: dict[str, tuple[str, ...]] = {
    POSIX.name: ("posix_bw", "posix_file_bw", "page_cache_bw", "exchange_bw", "posix_latency", "posix_lock", "piece_cost",
              "oversub_slice"),
    LUSTRE.name: ("ost_write_bw", "client_stream", "write_latency", "exchange_bw", "lock_time", "piece_cost",
                  "seek_time", "node_file_bw"),
    DATAWARP.name: ("bb_node_bw", "dvs_request", "dvs_node_bw", "exchange_bw", "piece_cost"),
}
SPAN = 20.0
PRIOR_WEIGHT = 0.3


@dataclass(frozen=True)
class MeasuredRun:
    """One measured run: what ran, with which configuration, and the value of ``metric`` it gave."""

    pattern: IOPattern
    config: Mapping[str, Any]
    seconds: float               # the measured value of ``metric`` (seconds by default)
    metric: str = "seconds"


@dataclass(frozen=True)
class FitResult:
    """Fitted constants, the full ``Constants``, the residual log-error (root mean square) and, per
    constant, its one-sigma multiplicative uncertainty (``x / f .. x * f``; inf when undetermined)."""

    values: dict[str, float]
    constants: Constants
    rms_log_error: float
    uncertainty: dict[str, float] = field(default_factory=dict)
    start: dict[str, float] = field(default_factory=dict)


def predicted(m: MeasuredRun, system: SystemProfile, fs: str, c: Constants) -> float:
    """The model's value of ``m.metric`` for ``m`` with constants ``c``."""
    try:
        value = predict(m.pattern, system, fs, m.config, constants=c).metric(m.metric)
    except (AutotuneError, ZeroDivisionError, ValueError):
        return math.nan
    if value is None:
        raise ConfigError(f"fit: the model cannot predict metric {m.metric!r}")
    return value


def fit_constants(measurements: Sequence[MeasuredRun], system: SystemProfile, names: Sequence[str],
                  filesystem: str | None = None, *, start: Constants | None = None,
                  bounds: tuple[float, float] = (1e-3, 1e3), prior_weight: float = 0.0,
                  init: Constants | None = None, max_nfev: int | None = None) -> FitResult:
    """Fit the constants ``names`` (e.g. ``["ost_write_bw", "write_latency"]``) to ``measurements``.

    ``bounds`` limit each constant to ``start x [low, high]``. Without a prior (``prior_weight`` 0)
    it needs at least as many measurements as constants. Put the values under ``model:`` in the
    site's profile (or use ``autotune model fit``). ``init`` starts the search elsewhere than ``start``
    (an earlier fit: the bounds and the prior stay around ``start``); ``max_nfev`` caps the evaluations.
    """
    fs = system.filesystem(filesystem)
    base = start if start is not None else constants_for(system, fs)
    # a constant the profile sets to 0 switches its mechanism off (NVMe OSTs: no seek): it stays off, unfitted
    names = [n for n in names if not (isinstance(getattr(base, n, None), float) and getattr(base, n) == 0.0)]
    derive = "write_stream" not in names and "write_stream" not in system.model and "write_stream" not in fs.extra
    derive_node = "node_file_bw" not in names and "node_file_bw" not in system.model and "node_file_bw" not in fs.extra
    if prior_weight <= 0 and len(measurements) < len(names):
        raise ConfigError(f"fit: {len(measurements)} measurement(s) cannot determine {len(names)} constant(s)")
    for n in names:
        if not isinstance(getattr(base, n, None), float):
            raise ConfigError(f"fit: {n!r} is not a numeric model constant")
    x0 = np.array([math.log(getattr(base, n)) for n in names])
    lo, hi = math.log(bounds[0]), math.log(bounds[1])
    x_init = x0 if init is None else np.clip([math.log(getattr(init, n)) for n in names], x0 + lo, x0 + hi)

    def consts(x: np.ndarray) -> Constants:
        c = base.with_(**{n: float(math.exp(v)) for n, v in zip(names, x, strict=True)})
        c = c.with_(write_stream=derived_stream(c)) if derive else c
        return c.with_(node_file_bw=c.write_stream) if derive_node else c

    def data_residuals(x: np.ndarray) -> np.ndarray:
        c = consts(x)
        res = [math.log(max(predicted(m, system, fs.name, c), 1e-300) / m.seconds) for m in measurements]
        return np.nan_to_num(np.array(res), nan=10.0)

    def residuals(x: np.ndarray) -> np.ndarray:
        return np.concatenate([data_residuals(x), prior_weight * (x - x0)])

    least_squares = require("scipy.optimize", "model", "fitting model constants").least_squares
    sol = least_squares(residuals, x_init, bounds=(x0 + lo, x0 + hi), x_scale=1.0, diff_step=1e-4, max_nfev=max_nfev)
    fitted = consts(sol.x)
    data = data_residuals(sol.x)
    rms = float(np.sqrt(np.mean(data**2))) if len(data) else 0.0
    return FitResult({n: getattr(fitted, n) for n in names}, fitted, rms,
                     _uncertainty(sol.jac, data, names, len(measurements), prior_weight > 0),
                     {n: getattr(base, n) for n in names})


def _uncertainty(jac: np.ndarray, data: np.ndarray, names: Sequence[str], n: int,
                 prior: bool) -> dict[str, float]:
    """One-sigma multiplicative factors from the Gauss-Newton covariance ``s^2 (J^T J)^-1``."""
    dof = max(1, n if prior else n - len(names))  # a prior adds one pseudo-observation per constant
    s2 = max(float(np.sum(data**2)) / dof, 1e-6)
    try:
        cov = np.linalg.pinv(jac.T @ jac) * s2
    except np.linalg.LinAlgError:
        return {name: math.inf for name in names}
    out = {}
    for i, name in enumerate(names):
        var = float(cov[i, i])
        out[name] = math.exp(math.sqrt(var)) if 0 <= var < 50 else math.inf
    return out

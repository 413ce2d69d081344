"""``autotune model calibrate --cross-validate``: leave one seed system out, fit on the rest, predict it.

The constants fitted to the cited sources (``SHARED``: client, MPI-IO and DVS mechanisms, not a site's
hardware figures) are refitted on the calibration rows of all seed systems but one, by bounded,
regularised least squares on the rows' log-errors; the rows of the system left out are then
predicted with the refitted constants. Tolerance for a held-out row, fixed before any comparison:
values and ratios within +-40% (an out-of-sample prediction of single runs read off slides),
orderings exact. Exit status 0 only when every held-out row is within it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

import numpy as np
from scipy.optimize import least_squares

from autotune.model import _calibrate as calibration
from autotune.model._constants import Constants

HELD_OUT_TOL = 0.40
SHARED = ("write_latency", "client_stream", "exchange_bw", "piece_cost", "sync_per_rank", "straggler_cv",
          "dvs_request", "dvs_node_bw", "lock_time")
PRIOR_WEIGHT = 0.5   # residual per unit of log-distance from the default: a factor e costs a 50% miss
SPAN = 10.0          # each constant within default / SPAN .. default x SPAN
SYSTEM_ROWS: dict[str, tuple[Callable[[], list[calibration.Row]], ...]] = {
    "shaheen2": (calibration.rows_shaheen, calibration.rows_wrf),
    "cori": (calibration.rows_vpic_bb, calibration.rows_cori_bb, calibration.rows_cori_16k),
    "theta": (calibration.rows_theta,),
}


@dataclass(frozen=True)
class Fold:
    """One fold: the system held out, the constants fitted without it, its rows predicted with them."""

    held_out: str
    fitted: dict[str, float]
    rows: list[calibration.Row]

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.rows)


def _rows(systems: list[str]) -> list[calibration.Row]:
    return [row for s in systems for fn in SYSTEM_ROWS[s] for row in fn()]


def fit_shared(systems: list[str], names: tuple[str, ...] = SHARED) -> dict[str, float]:
    """The ``names`` constants fitted to the calibration rows of ``systems`` (regularised, bounded)."""
    base = Constants()
    x0 = np.array([math.log(getattr(base, n)) for n in names])

    def residuals(x: np.ndarray) -> np.ndarray:
        over = {n: float(math.exp(v)) for n, v in zip(names, x, strict=True)}
        with calibration.setting(overrides=over):
            res = [r for row in _rows(systems) for r in row.residuals]
        return np.array(res + list(PRIOR_WEIGHT * (x - x0)))

    span = math.log(SPAN)
    sol = least_squares(residuals, x0, bounds=(x0 - span, x0 + span), diff_step=1e-3)
    return {n: float(math.exp(v)) for n, v in zip(names, sol.x, strict=True)}


def cross_validate() -> list[Fold]:
    folds = []
    for held in SYSTEM_ROWS:
        fitted = fit_shared([s for s in SYSTEM_ROWS if s != held])
        with calibration.setting(tol=HELD_OUT_TOL, overrides=fitted):
            rows = _rows([held])
        folds.append(Fold(held, fitted, rows))
    return folds


def report(out: TextIO) -> bool:
    """Print each fold's fitted constants and held-out rows; True iff every held-out row passes."""
    folds = cross_validate()
    base = Constants()
    for f in folds:
        out.write(f"== {f.held_out} held out; fitted on {', '.join(s for s in SYSTEM_ROWS if s != f.held_out)}\n")
        moved = ", ".join(f"{n} x{v / getattr(base, n):.3g}" for n, v in f.fitted.items())
        out.write(f"   constants (vs default): {moved}\n")
        calibration.write_table(f.rows, out)
    total = sum(len(f.rows) for f in folds)
    passed = sum(r.passed for f in folds for r in f.rows)
    out.write(f"{passed}/{total} held-out rows within tolerance (values and ratios +-{HELD_OUT_TOL:.0%},"
              " orderings exact)\n")
    return passed == total

"""A calibrated, explainable performance model of Lustre, DataWarp and Cray MPI-IO (pure Python).

``predict(pattern, system, filesystem, config)`` gives each phase's time as a sum of named terms;
``NoiseModel`` adds shared-system jitter; ``simulate_run`` returns a kernel-style JSON record;
``calibrate`` compares the model with the cited sources' figures; ``fit_constants`` fits a site's constants
to measured runs; ``scenarios`` holds the cited sources' experiments by name. See docs/model.md.
"""

import importlib
from typing import TYPE_CHECKING, Any

from autotune._extras import require
from autotune.model import _scenarios as scenarios  # the cited sources' experiments, by name
from autotune.model._calibrate import calibrate
from autotune.model._ceiling import physical_ceiling
from autotune.model._constants import Constants, constants_for
from autotune.model._fit import FIT_NAMES, PRIOR_WEIGHT, SPAN, FitResult, MeasuredRun, fit_constants, predicted
from autotune.model._noise import NoiseModel, sample
from autotune.model._phases import metadata_term, predict
from autotune.model._prediction import (
    MODEL_METRICS,
    RESOURCES,
    Limit,
    PhasePrediction,
    Prediction,
    Term,
    judged_metric,
)
from autotune.model._settings import Resolved, cannot_judge, settings_in_effect
from autotune.model._simulate import simulate_run

if TYPE_CHECKING:
    from autotune.model._crossval import report as crossval_report
    from autotune.model._outofsample import report as outofsample_report

# The validation reports load SciPy: imported on first use, not with the package.
_LAZY = {"crossval_report": ("autotune.model._crossval", "report"),
         "outofsample_report": ("autotune.model._outofsample", "report")}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module, attr = _LAZY[name]
        require("scipy.optimize", "model", "autotune model calibrate --cross-validate / --out-of-sample")
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "FIT_NAMES",
    "MODEL_METRICS",
    "PRIOR_WEIGHT",
    "RESOURCES",
    "SPAN",
    "Constants",
    "FitResult",
    "Limit",
    "MeasuredRun",
    "NoiseModel",
    "PhasePrediction",
    "Prediction",
    "Resolved",
    "Term",
    "calibrate",
    "cannot_judge",
    "constants_for",
    "crossval_report",
    "fit_constants",
    "judged_metric",
    "metadata_term",
    "outofsample_report",
    "physical_ceiling",
    "predict",
    "predicted",
    "sample",
    "scenarios",
    "settings_in_effect",
    "simulate_run",
]

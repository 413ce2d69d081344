"""A calibrated, explainable performance model of Lustre, DataWarp and Cray MPI-IO (pure Python).

``predict(pattern, system, filesystem, config)`` gives each phase's time as a sum of named terms;
``NoiseModel`` adds shared-system jitter; ``simulate_run`` returns a kernel-style JSON record;
``calibrate`` compares the model with the seeds' figures; ``fit_constants`` fits a site's constants
to measured runs. See docs/model.md.
"""

from autotune.model._calibrate import calibrate
from autotune.model._ceiling import physical_ceiling
from autotune.model._constants import Constants, constants_for
from autotune.model._fit import FitResult, MeasuredRun, fit_constants
from autotune.model._noise import NoiseModel, sample
from autotune.model._predict import metadata_term, predict
from autotune.model._prediction import (
    RESOURCES,
    Limit,
    PhasePrediction,
    Prediction,
    Term,
)
from autotune.model._settings import Resolved, cannot_judge, settings_in_effect
from autotune.model._simulate import simulate_run

__all__ = [
    "RESOURCES", "Constants", "FitResult", "Limit", "MeasuredRun", "NoiseModel", "PhasePrediction", "Prediction",
    "Resolved", "Term", "calibrate", "cannot_judge", "constants_for", "fit_constants", "metadata_term", "physical_ceiling",
    "predict", "sample",
    "settings_in_effect", "simulate_run",
]

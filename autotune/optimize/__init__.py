"""Optimizer improvements: a genetic-algorithm baseline, a model-informed start, adaptive repetitions
with re-measurement, and warm start from earlier campaigns. Pure Python (no Ray, no MLflow)."""

from autotune.optimize._adaptive import DEFAULT_MARGIN, Candidate, RepetitionPolicy, recommend, remeasure
from autotune.optimize._diverse import distance
from autotune.optimize._ga import GASampler
from autotune.optimize._local import AutotuneSampler
from autotune.optimize._prior import candidates, coordinate_ascent, model_metric, model_ranked, scaled_constants
from autotune.optimize._samplers import (
    DEFAULT_SAMPLER,
    SAMPLERS,
    SINGLE_OBJECTIVE_ONLY,
    AskTellGridSampler,
    SamplerArgs,
    SamplerPlugin,
    make_sampler,
    resume_seed,
    sampler_for,
)
from autotune.optimize._start import (
    PRIOR_TOP,
    Memo,
    initial_configs,
    model_line,
    model_metric_of,
    model_start,
    model_verdict,
    prior_spec,
)
from autotune.optimize._warm import add_history, load_source, warm_configs, warm_start

__all__ = [
    "DEFAULT_MARGIN",
    "DEFAULT_SAMPLER",
    "PRIOR_TOP",
    "SAMPLERS",
    "SINGLE_OBJECTIVE_ONLY",
    "AskTellGridSampler",
    "AutotuneSampler",
    "Candidate",
    "GASampler",
    "Memo",
    "RepetitionPolicy",
    "SamplerArgs",
    "SamplerPlugin",
    "add_history",
    "candidates",
    "coordinate_ascent",
    "distance",
    "initial_configs",
    "load_source",
    "make_sampler",
    "model_line",
    "model_metric",
    "model_metric_of",
    "model_ranked",
    "model_start",
    "model_verdict",
    "prior_spec",
    "recommend",
    "remeasure",
    "resume_seed",
    "sampler_for",
    "scaled_constants",
    "warm_configs",
    "warm_start",
]

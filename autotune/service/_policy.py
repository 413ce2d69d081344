"""Which configuration a production job runs: the best known one, or a bounded exploratory one."""

from __future__ import annotations

import random
from dataclasses import dataclass

import optuna

from autotune.errors import ConfigError
from autotune.space import BoundSpace, Config


@dataclass(frozen=True)
class Policy:
    """``explore``: the fraction of jobs that try a new configuration; ``max_slowdown``: an exploratory
    configuration must be predicted (by the model) no more than this much slower than the best known one;
    ``tries``: how many sampler proposals are screened before the job falls back to the best known one."""

    explore: float = 0.2
    max_slowdown: float = 0.25
    tries: int = 20

    def __post_init__(self) -> None:
        if not 0.0 <= self.explore <= 1.0:
            raise ConfigError(f"--explore: {self.explore} must be a fraction between 0 and 1")
        if not 0.0 <= self.max_slowdown < 1.0:
            raise ConfigError(f"--max-slowdown: {self.max_slowdown} must be a fraction in [0, 1)")

    def wants_exploration(self, rng: random.Random) -> bool:
        return rng.random() < self.explore


def predicted(space: BoundSpace, config: Config, metric: str, maximize: bool) -> float | None:
    """The model's value for ``config`` as a 'larger is better' score (None: the model cannot say)."""
    from autotune.optimize._prior import model_metric

    value = model_metric(space, config, metric)
    if value is None or value <= 0:
        return None
    return value if maximize else 1.0 / value


def acceptable(space: BoundSpace, candidate: Config, best: Config, metric: str, maximize: bool,
               max_slowdown: float) -> bool:
    """True when the model does not expect ``candidate`` to be more than ``max_slowdown`` slower than
    ``best``; a configuration the model cannot judge is accepted only if it breaks no rule."""
    if not space.feasible(candidate):
        return False
    cand, ref = predicted(space, candidate, metric, maximize), predicted(space, best, metric, maximize)
    if cand is None or ref is None:
        return True
    return cand >= (1.0 - max_slowdown) * ref


def explore(study: optuna.Study, space: BoundSpace, best: Config, metric: str, maximize: bool,
            policy: Policy) -> optuna.Trial | None:
    """Ask the study's sampler for a new configuration the policy accepts (the trial is left RUNNING);
    rejected proposals are told PRUNED so the sampler moves on. None: nothing acceptable was proposed."""
    for _ in range(policy.tries):
        trial = study.ask(fixed_distributions=space.distributions())
        config = space.from_optuna(trial.params)
        if acceptable(space, config, best, metric, maximize, policy.max_slowdown):
            return trial
        study.tell(trial, state=optuna.trial.TrialState.PRUNED)
    return None

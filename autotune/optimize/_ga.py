"""An H5Tuner-style genetic algorithm as an Optuna sampler (population 15, elitism, mutation 15%).

H5Tuner (Behzad et al., SC'13) tuned HDF5/MPI-IO/Lustre parameters with a genetic algorithm. Here:
the first ``population`` trials are random; afterwards the population is the ``population`` best
configurations so far (elitism: the best are never lost), each child comes from two parents chosen by
binary tournament, uniform crossover, and each gene mutates to a random value with ``mutation``
probability. A child identical to an evaluated configuration is mutated again.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import optuna
from optuna.distributions import BaseDistribution, CategoricalDistribution, FloatDistribution, IntDistribution
from optuna.search_space import IntersectionSearchSpace
from optuna.trial import FrozenTrial, TrialState


class GASampler(optuna.samplers.BaseSampler):
    """Elitist genetic algorithm (steady state): population 15, binary tournament, 15% mutation."""

    def __init__(self, population: int = 15, mutation: float = 0.15, crossover: float = 0.9,
                 seed: int | None = None) -> None:
        if population < 2 or not 0 <= mutation <= 1 or not 0 <= crossover <= 1:
            raise ValueError("GASampler: population >= 2, 0 <= mutation <= 1, 0 <= crossover <= 1")
        self.population, self.mutation, self.crossover = population, mutation, crossover
        self._rng = np.random.default_rng(seed)
        self._random = optuna.samplers.RandomSampler(seed=seed)
        self._space = IntersectionSearchSpace()

    def reseed_rng(self) -> None:
        self._rng = np.random.default_rng()
        self._random.reseed_rng()

    def infer_relative_search_space(self, study: optuna.Study, trial: FrozenTrial) -> dict[str, BaseDistribution]:
        return self._space.calculate(study)

    def _gene(self, dist: BaseDistribution) -> Any:
        rng = self._rng
        if isinstance(dist, CategoricalDistribution):
            return dist.choices[int(rng.integers(len(dist.choices)))]
        if isinstance(dist, IntDistribution):
            if dist.log:
                v = round(math.exp(rng.uniform(math.log(dist.low), math.log(dist.high))))
                return min(dist.high, max(dist.low, v))
            steps = (dist.high - dist.low) // dist.step
            return dist.low + dist.step * int(rng.integers(steps + 1))
        if isinstance(dist, FloatDistribution):
            if dist.log:
                return float(math.exp(rng.uniform(math.log(dist.low), math.log(dist.high))))
            return float(rng.uniform(dist.low, dist.high))
        raise ValueError(f"GASampler: unsupported distribution {dist!r}")

    def _tournament(self, pop: Sequence[FrozenTrial], maximize: bool) -> FrozenTrial:
        a, b = (pop[int(i)] for i in self._rng.integers(len(pop), size=2))
        av, bv = float(a.value or 0.0), float(b.value or 0.0)
        return a if (av >= bv) == maximize else b

    def sample_relative(self, study: optuna.Study, trial: FrozenTrial,
                        search_space: dict[str, BaseDistribution]) -> dict[str, Any]:
        if not search_space:
            return {}
        done = [t for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
                if t.value is not None and all(k in t.params for k in search_space)]
        if len(done) < self.population:
            return {}
        maximize = study.direction == optuna.study.StudyDirection.MAXIMIZE
        pop = sorted(done, key=lambda t: float(t.value or 0.0), reverse=maximize)[:self.population]
        seen = {tuple(t.params[k] for k in search_space) for t in done}
        p1, p2 = self._tournament(pop, maximize), self._tournament(pop, maximize)
        cross = self._rng.random() < self.crossover
        child = {k: (p2.params[k] if cross and self._rng.random() < 0.5 else p1.params[k]) for k in search_space}
        for _ in range(20):
            for k, d in search_space.items():
                if self._rng.random() < self.mutation:
                    child[k] = self._gene(d)
            if tuple(child[k] for k in search_space) not in seen:
                break
        return child

    def sample_independent(self, study: optuna.Study, trial: FrozenTrial, param_name: str,
                           param_distribution: BaseDistribution) -> Any:
        return self._random.sample_independent(study, trial, param_name, param_distribution)

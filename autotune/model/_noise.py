"""Run-to-run jitter of a shared system: a few percent of spread and an occasional heavy tail.

KAUST Shaheen II training; ALCF Theta I/O talk: "Variation 2-3%", "Variation of I/O is typically around 4-5%"; other users'
bursts on the shared OSSs and MDS slow some runs much more ("best result usually represents least
jitter"). The noiseless prediction is the undisturbed run, so jitter only slows: each phase's time
is multiplied by ``exp(|N(0, spread)|)`` (a run-to-run spread of about 0.6 x ``spread``) and, with
probability ``tail_probability``, by ``1 + Exp(tail_mean)`` as well. Seeded through a ``numpy``
Generator; the best of N converges on the prediction as on a real system (the aggregate the model's
shared-storage targets get by default, ``autotune.measure.default_aggregate``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from autotune.model._prediction import Prediction


@dataclass(frozen=True)
class NoiseModel:
    """Multiplicative jitter on each phase; ``enabled=False`` returns the prediction unchanged."""

    spread: float = 0.05            # half-lognormal sigma: ~3% run-to-run spread on a quiet system
    tail_probability: float = 0.05  # chance that a run meets other users' burst
    tail_mean: float = 0.5          # mean extra slowdown of such a run (x1.5 on average)
    enabled: bool = True

    def __post_init__(self) -> None:
        if self.spread < 0 or not 0 <= self.tail_probability <= 1 or self.tail_mean < 0:
            raise ValueError("NoiseModel: spread >= 0, 0 <= tail_probability <= 1, tail_mean >= 0")

    def factor(self, rng: np.random.Generator) -> float:
        """One time multiplier (>= 1: a few percent, occasionally much more)."""
        if not self.enabled:
            return 1.0
        f = math.exp(abs(rng.normal(0.0, self.spread))) if self.spread > 0 else 1.0
        if self.tail_probability > 0 and rng.random() < self.tail_probability:
            f *= 1.0 + rng.exponential(self.tail_mean)
        return f

    def sample(self, prediction: Prediction, rng: np.random.Generator | int | None = None) -> Prediction:
        """A noisy copy of ``prediction`` (one factor per phase)."""
        if not self.enabled:
            return prediction
        gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        return prediction.scaled([self.factor(gen) for _ in prediction.phases])


QUIET = NoiseModel(tail_probability=0.0)
NOISELESS = NoiseModel(enabled=False)


def sample(prediction: Prediction, rng: np.random.Generator | int | None = None,
           noise: NoiseModel | None = None) -> Prediction:
    """``prediction`` with shared-system jitter (``NoiseModel()`` unless ``noise`` is given)."""
    return (noise or NoiseModel()).sample(prediction, rng)

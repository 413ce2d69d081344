"""Jitter: reproducible with a seed, off when disabled, a few percent with an occasional tail."""

from __future__ import annotations

import numpy as np

from autotune.model import NoiseModel, predict, sample
from autotune.model import _scenarios as scenarios
from autotune.systems import SystemProfile


def test_seeded_noise_is_reproducible(theta: SystemProfile) -> None:
    pred = predict(scenarios.THETA_IOR, theta, "projects")
    a = [sample(pred, np.random.default_rng(7)).seconds for _ in range(3)]
    b = [sample(pred, np.random.default_rng(7)).seconds for _ in range(3)]
    assert a == b
    assert sample(pred, 1).seconds != sample(pred, 2).seconds


def test_disabled_noise_returns_the_prediction(theta: SystemProfile) -> None:
    pred = predict(scenarios.THETA_IOR, theta, "projects")
    assert NoiseModel(enabled=False).sample(pred, 3).seconds == pred.seconds


def test_spread_and_heavy_tail() -> None:
    rng = np.random.default_rng(0)
    quiet = np.array([NoiseModel(tail_probability=0.0).factor(rng) for _ in range(4000)])
    assert 0.02 < quiet.std() < 0.05
    noisy = np.array([NoiseModel(tail_probability=0.1).factor(rng) for _ in range(4000)])
    assert np.percentile(noisy, 99) > 1.3 and np.median(noisy) < 1.05 and noisy.min() >= 1.0


def test_best_of_n_approaches_the_prediction(theta: SystemProfile) -> None:
    pred = predict(scenarios.THETA_IOR, theta, "projects")
    rng = np.random.default_rng(1)
    one = np.mean([sample(pred, rng).seconds for _ in range(200)])
    best5 = np.mean([min(sample(pred, rng).seconds for _ in range(5)) for _ in range(200)])
    assert pred.seconds <= best5 < one
    assert best5 / pred.seconds - 1 < 0.5 * (one / pred.seconds - 1)

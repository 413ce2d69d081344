"""AutotuneSampler and GASampler through Optuna's own sampler test suite (optuna.testing.pytest_samplers),
plus the checks it does not make for a campaign's space: seeded determinism and proposals inside the bound
space's distributions."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import optuna
import pytest
from optuna.testing.pytest_samplers import BasicSamplerTestCase, RelativeSamplerTestCase

from autotune.campaign import Runtime, parse_campaign
from autotune.optimize import AutotuneSampler, GASampler, make_sampler
from autotune.space import BoundSpace

_SPACE: dict[str, BoundSpace] = {}


def bound_space() -> BoundSpace:
    """A Lustre space with every parameter type (int, pow2, categorical) bound to a model target."""
    if "s" not in _SPACE:
        c = parse_campaign({
            "name": "contract", "system": "shaheen2", "target": {"filesystem": "scratch"},
            "app": {"command": ["wrf"], "ranks": 1280, "nodes": 40, "metric": {"extractor": "json"},
                    "pattern": {"bytes_per_rank": 1134375, "transfer_size": 11343, "layout": "strided"}},
            "space": "lustre-cray", "launcher": {"name": "model"}, "storage": ":memory:",
            "tracking": {"enabled": False}, "workdir": "/tmp/unused"}, Path("."))
        _SPACE["s"] = Runtime.build(c).space
    return _SPACE["s"]


def _autotune(seed: int | None = 0, startup: int = 5) -> optuna.samplers.BaseSampler:
    tpe = optuna.samplers.TPESampler(seed=seed, n_startup_trials=startup, multivariate=True)
    return AutotuneSampler(bound_space(), tpe, seed=seed, warmup=2)


class TestAutotuneBasic(BasicSamplerTestCase):
    @pytest.fixture
    def sampler(self) -> Callable[[], optuna.samplers.BaseSampler]:
        return _autotune


class TestAutotuneRelative(RelativeSamplerTestCase):
    """Relative sampling after one trial: the TPE inside proposes from the first trial on (no startup)."""

    @pytest.fixture
    def sampler(self) -> Callable[[], optuna.samplers.BaseSampler]:
        return lambda: _autotune(startup=0)


class TestGABasic(BasicSamplerTestCase):
    @pytest.fixture
    def sampler(self) -> Callable[[], optuna.samplers.BaseSampler]:
        return lambda: GASampler(seed=0)


def _run(name: str, seed: int, n: int = 14) -> list[dict[str, Any]]:
    """``n`` ask/tell trials of sampler ``name`` on the bound space; the configurations proposed."""
    space = bound_space()
    study = optuna.create_study(direction="maximize", sampler=make_sampler({"name": name, "seed": seed}, space))
    dists = space.distributions()
    out = []
    for i in range(n):
        trial = study.ask(dists)
        for key, value in trial.params.items():
            assert dists[key]._contains(dists[key].to_internal_repr(value)), (key, value)
        out.append(dict(trial.params))
        study.tell(trial, float(sum(hash(str(v)) % 97 for v in trial.params.values()) + i % 3))
    return out


@pytest.mark.parametrize("name", ["autotune", "ga", "tpe", "random"])
def test_seeded_runs_repeat_and_stay_in_the_space(name: str) -> None:
    assert _run(name, seed=5) == _run(name, seed=5)
    assert _run(name, seed=5) != _run(name, seed=6)

"""Every registered launcher through its contract suite (autotune.testing): local, model, slurm, slurm-step
(replay: tests/launch/test_replay.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from autotune.launch import LAUNCHERS, BaseLauncher, RunRequest, get_launcher
from autotune.model import scenarios
from autotune.pattern import IOPattern
from autotune.testing import LauncherContract, RunContract, ensure_local_slurm
from tests.contracts.examples import model_request


def test_every_registered_launcher_has_a_contract_here() -> None:
    # the built-in ones (other tests may register fakes); replay's contract is in test_replay.py
    assert {"local", "model", "replay", "slurm", "slurm-step"} <= set(LAUNCHERS.names())


class TestLocalContract(LauncherContract):
    @pytest.fixture
    def launcher(self) -> BaseLauncher:
        return get_launcher("local", {})



class TestModelContract(RunContract):
    """The model runs no command: a repetition is a prediction; an impossible configuration is the failure."""

    @pytest.fixture
    def launcher(self) -> BaseLauncher:
        return get_launcher("model")

    def ok_request(self, tmp: Path, repetition: int = 0) -> RunRequest:
        return model_request(tmp, {"lustre.stripe_count": 8}, scenarios.THETA_IOR, "theta", "projects", repetition)

    def failing_request(self, tmp: Path) -> RunRequest:
        big = IOPattern(ranks=64, nodes=16, bytes_per_rank=4 << 30)
        return model_request(tmp, {"bb.nodes": 1}, big, "cori", "bb")


@pytest.fixture
def slurm() -> str:
    return ensure_local_slurm()


@pytest.mark.slurm
@pytest.mark.slow
class TestSlurmContract(LauncherContract):
    @pytest.fixture
    def launcher(self, slurm: str) -> Iterator[BaseLauncher]:
        launcher = get_launcher("slurm", {"poll_interval": 0.2})
        yield launcher
        launcher.close()


@pytest.mark.slurm
@pytest.mark.slow
class TestSlurmStepContract(LauncherContract):
    @pytest.fixture
    def launcher(self, slurm: str) -> Iterator[BaseLauncher]:
        launcher = get_launcher("slurm-step", {"poll_interval": 0.2, "queue_wait": "5m"})
        yield launcher
        launcher.close()  # each test's allocation is released: a held one would block the node for the next

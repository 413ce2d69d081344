"""Every registered tracker through autotune.testing.TrackerContract (MLflow read back with its client)."""

from __future__ import annotations

from pathlib import Path

import pytest

from autotune.testing import TrackerContract, history
from autotune.tracking import TRACKERS, BaseTracker, get_tracker


def test_every_registered_tracker_has_a_contract_here() -> None:
    assert set(TRACKERS.names()) == {"none", "mlflow"}


class TestNoneContract(TrackerContract):
    @pytest.fixture
    def tracker(self) -> BaseTracker:
        return get_tracker("none", {})


@pytest.mark.slow
class TestMlflowContract(TrackerContract):
    @pytest.fixture
    def tracker(self, tmp_path: Path) -> BaseTracker:
        return get_tracker("mlflow", {"uri": f"sqlite:///{tmp_path / 'mlflow.db'}", "experiment": "contract",
                                      "artifacts": str(tmp_path / "artifacts")})

    def recorded(self, tracker: BaseTracker) -> dict[int, list[float | None]] | None:
        return history(tracker.client, "contract")  # type: ignore[attr-defined]

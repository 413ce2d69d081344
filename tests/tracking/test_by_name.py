"""The campaign file's ``tracking.name`` chooses the tracker (default mlflow); options checked by its schema."""

from __future__ import annotations

from pathlib import Path

import pytest

from autotune.errors import ConfigError, RegistryError
from autotune.testing import model_campaign
from autotune.tracking import TRACKERS, campaign_tracker, get_tracker


def test_none_and_disabled_track_nothing(tmp_path: Path) -> None:
    kw = {"experiment": "e", "uri": f"sqlite:///{tmp_path / 'm.db'}", "workdir": tmp_path / "w"}
    assert campaign_tracker({"name": "none"}, **kw) is None
    assert campaign_tracker({"enabled": False, "name": "mlflow"}, **kw) is None
    assert not (tmp_path / "w").exists()  # nothing created for a campaign that tracks nothing


def test_unknown_tracker_is_one_line_naming_the_known_ones(tmp_path: Path) -> None:
    with pytest.raises(RegistryError, match=r"tracking.name: unknown tracker 'wandb' \(known: none, mlflow\)"):
        campaign_tracker({"name": "wandb"}, experiment="e", uri="sqlite://", workdir=tmp_path)
    with pytest.raises(ConfigError, match="tracking.name: unknown tracker 'wandb'") as err:
        model_campaign(tmp_path, tracking={"name": "wandb"})
    assert "\n" not in str(err.value)


def test_tracker_options_are_checked_by_its_schema() -> None:
    assert TRACKERS.get("mlflow").option_names() == {"uri", "experiment", "artifacts"}
    with pytest.raises(ConfigError, match="tracking.experiment: 5 is not a string"):
        get_tracker("mlflow", {"uri": "sqlite://", "experiment": 5})
    with pytest.raises(ConfigError, match="tracking: unknown key 'colour' \\(allowed: none\\)"):
        get_tracker("none", {"colour": "blue"})


@pytest.mark.slow  # MLflow creates its SQLite schema (~20 s here)
def test_the_named_tracker_is_built_with_the_campaign_defaults(tmp_path: Path) -> None:
    pytest.importorskip("mlflow", reason="the MLflow tracker needs the [tracking] extra")
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    tracker = campaign_tracker({"name": "mlflow", "experiment": "mine"}, experiment="camp", uri=uri,
                               workdir=tmp_path / "work")
    assert tracker is not None and tracker.name == "mlflow"
    assert (tracker.uri, tracker.experiment_name, tracker.artifacts) == (  # type: ignore[attr-defined]
        uri, "mine", str(tmp_path / "work" / "mlartifacts"))

"""``tracking: {name: none}`` means off everywhere: ``tune`` and ``compare`` neither check nor create an MLflow
store (a corrupt ``mlflow.db`` in the work directory is left alone), exactly as ``enabled: false``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from autotune.cli import main
from autotune.testing import model_campaign

GARBAGE = b"not an SQLite database"


def _campaign_file(tmp_path: Path, tracking: dict[str, Any]) -> Path:
    data: dict[str, Any] = {
        "name": "tracking-off", "system": "theta", "target": {"filesystem": "projects"},
        "app": {"command": ["ior"], "ranks": 256, "nodes": 16, "metric": {"extractor": "json"},
                "pattern": {"bytes_per_rank": "1MiB", "transfer_size": "1MiB"}},
        "space": {"use": "lustre-cray", "only": ["lustre.stripe_count", "lustre.stripe_size"]},
        "objective": {"metric": "write_bandwidth_mib_s", "repeats": 2, "confirm": 0},
        "budget": {"trials": 3}, "sampler": {"name": "tpe", "seed": 1}, "launcher": {"name": "model"},
        "tracking": tracking, "workdir": str(tmp_path / "work"),
    }
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "mlflow.db").write_bytes(GARBAGE)  # checked (and rejected) only if tracking is on
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.mark.parametrize("tracking", [{"name": "none"}, {"enabled": False}])
def test_tracking_off_neither_checks_nor_creates_an_mlflow_store(tmp_path: Path, tracking: dict[str, Any],
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    path = _campaign_file(tmp_path, tracking)
    assert main(["tune", str(path)]) == 0
    out = capsys.readouterr().out
    assert "tracking:" not in out and "storage:" in out
    assert main(["compare", str(path), "--report", str(tmp_path / "report")]) == 0
    assert (tmp_path / "work" / "mlflow.db").read_bytes() == GARBAGE
    assert not (tmp_path / "work" / "mlartifacts").exists() and not (tmp_path / "report" / "mlartifacts").exists()
    assert not list(tmp_path.rglob("mlflow.db*"))[1:]  # the corrupt file is the only MLflow store
    assert "MLflow" not in (tmp_path / "report" / "report.md").read_text()


def test_tracking_on_checks_the_mlflow_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The same corrupt store stops a tracked campaign before it runs: the check above is a real one."""
    path = _campaign_file(tmp_path, {"name": "mlflow"})
    assert main(["tune", str(path)]) == 2
    assert "tracking store" in capsys.readouterr().err


def test_mlflow_uri_asks_the_one_helper(tmp_path: Path) -> None:
    assert model_campaign(tmp_path, tracking={"name": "none"}).mlflow_uri is None
    assert model_campaign(tmp_path, tracking={"enabled": False}).mlflow_uri is None
    on = model_campaign(tmp_path, tracking={"name": "mlflow"})
    assert on.mlflow_uri == on.tracking_uri == f"sqlite:///{tmp_path / 'work' / 'mlflow.db'}"

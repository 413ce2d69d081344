"""experiments/campaigns/my-app: a user's own MPI-IO program (C), compiled with mpicc, checked and tuned as an opaque command."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from autotune.campaign import Runtime, load_campaign, open_study
from autotune.cli import main

REPO = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.mpi]


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """experiments/campaigns/my-app/checkpoint.c built once for the module's tests."""
    if shutil.which("mpicc") is None:
        pytest.skip("mpicc is not installed (make setup installs MPICH's libmpich-dev)")
    exe = tmp_path_factory.mktemp("my-app") / "checkpoint"
    source = REPO / "experiments" / "campaigns" / "my-app" / "checkpoint.c"
    subprocess.run(["mpicc", "-O2", "-o", str(exe), str(source)], check=True)
    return exe


@pytest.fixture
def my_app(tmp_path: Path, checkpoint: Path) -> Path:
    """experiments/campaigns/my-app.yaml with the built program and a small size (4 ranks x 64 x 16 KiB)."""
    data = yaml.safe_load((REPO / "experiments" / "campaigns" / "my-app.yaml").read_text())
    data["app"]["command"] = [str(checkpoint), "{data_dir}/checkpoint.dat", "16384", "64"]
    data["app"]["pattern"]["bytes_per_rank"] = "1MiB"
    data["objective"]["repeats"] = 1
    data["objective"]["confirm"] = 0  # the confirmation has its own tests (tests/campaign/confirm/test_confirm.py)
    data.update(workdir=str(tmp_path / "work"), tracking={"enabled": False}, budget={"trials": 3, "run_timeout": "60s"})
    path = tmp_path / "my-app.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_check_shows_the_metric_its_unit_and_the_hints_in_effect(my_app: Path, capsys: Any) -> None:
    assert main(["check", str(my_app)]) == 0
    out = capsys.readouterr().out
    assert "  | bandwidth: " in out and "metric: write_bandwidth_mib_s = " in out
    assert "MiB/s (a bandwidth, maximized; read by extractor regex)" in out
    assert "hints in effect (as the MPI library reports them):" in out and "  romio_aggregator_list = 0" in out


def test_a_capped_aggregator_count_is_flagged_as_not_in_effect(my_app: Path, capsys: Any) -> None:
    data = yaml.safe_load(my_app.read_text())
    data["space"] = {"use": "local-romio", "fixed": {"mpiio.cb_config_list": "*:1"}}
    my_app.write_text(yaml.safe_dump(data))
    assert main(["check", str(my_app), "--config", "mpiio.cb_nodes=4", "--config", "mpiio.romio_cb_write=enable"]) == 0
    out = capsys.readouterr().out
    assert "NOT IN EFFECT: cb_nodes=4 -> 1 (ROMIO's own report of its hints (real values, not an echo): ROMIO used 1 " \
        "aggregator(s)" in out


def test_tune_stores_the_hints_in_effect_of_a_command(my_app: Path, capsys: Any) -> None:
    assert main(["tune", str(my_app)]) == 0
    assert "3 trials run (0 failed)" in capsys.readouterr().out
    c = load_campaign(my_app)
    study = open_study(c, Runtime.build(c).space, create=False)
    ran = [t for t in study.trials if t.user_attrs.get("ran")]
    assert len(ran) == 3
    for t in ran:
        assert t.user_attrs["hints_in_effect"]["romio_filesystem_type"].startswith("UFS")
        requested = t.user_attrs["hints"]
        if "cb_nodes" in requested:  # autotune's cb_config_list makes the aggregators really take effect
            assert len(t.user_attrs["hints_in_effect"]["romio_aggregator_list"].split()) == int(requested["cb_nodes"])

"""An IOR-like program tuned as an opaque command on local disk: the model-informed first picks include
collective buffering disabled (on this machine ~10-50x the enabled two-phase write for IOR's blocks)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

from autotune.campaign import Runtime, load_campaign, open_study
from autotune.cli import main

pytestmark = [pytest.mark.slow, pytest.mark.mpi]


def test_the_model_puts_collective_buffering_off_among_the_first_picks(tmp_path: Path) -> None:
    data = {
        "name": "opaque-ior",
        "app": {
            # the IOR-like kernel as any program: it receives hints only through the ROMIO hints file
            "command": [sys.executable, "-m", "mpi4py", "-m", "autotune.kernels.ior", "--dir", "{data_dir}",
                        "--block-size", "16MiB", "--transfer-size", "1MiB", "--phases", "write"],
            "ranks": 2,
            "pattern": {"bytes_per_rank": "16MiB", "transfer_size": "1MiB", "io_mode": "collective",
                        "library": "mpiio"},
            "metric": {"extractor": "json"},
        },
        "system": "local", "target": {"filesystem": "disk"}, "space": "local-romio",
        "objective": {"metric": "write_bandwidth_mib_s", "repeats": 1, "confirm": 0},
        "budget": {"trials": 4, "run_timeout": "120s"},
        "sampler": {"name": "autotune", "seed": 3},
        "launcher": {"name": "local"},
        "workdir": str(tmp_path / "work"), "tracking": {"enabled": False},
    }
    path = tmp_path / "ior.yaml"
    path.write_text(yaml.safe_dump(data))
    assert main(["tune", str(path)]) == 0
    c = load_campaign(path)
    study = open_study(c, Runtime.build(c).space, create=False)
    ran = sorted((t for t in study.trials if t.user_attrs.get("ran")), key=lambda t: t.number)
    assert ran[0].user_attrs.get("is_default")
    first_picks = [t.params.get("mpiio.romio_cb_write") for t in ran[1:4]]
    assert "disable" in first_picks, first_picks

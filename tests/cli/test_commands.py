from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from autotune.cli import main

REPO = Path(__file__).resolve().parents[2]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "autotune.cli", *args], capture_output=True, text=True, timeout=300)


def test_errors_are_one_line_without_traceback(tmp_path: Path) -> None:
    res = cli("tune", str(tmp_path / "missing.yaml"))
    assert res.returncode == 2
    assert res.stderr.strip().count("\n") == 0 and "Traceback" not in res.stderr
    assert "missing.yaml' not found" in res.stderr
    bad = tmp_path / "c.yaml"
    bad.write_text(yaml.safe_dump({"app": {"kernel": "ior", "ranks": 2}, "space": "lustre-cray", "system": "theta",
                                   "space_": 1}))
    res = cli("status", str(bad))
    assert res.returncode == 2 and "unknown key 'space_'" in res.stderr and "Traceback" not in res.stderr


def test_stripe_count_above_osts_is_refused(tmp_path: Path) -> None:
    c = tmp_path / "c.yaml"
    c.write_text(yaml.safe_dump({"app": {"kernel": "ior", "ranks": 64, "nodes": 4}, "system": "theta",
                                 "space": {"use": "lustre-cray", "fixed": {"lustre.stripe_count": 64}},
                                 "launcher": "model"}))
    res = cli("tune", str(c), "--dry-run")
    assert res.returncode == 2
    assert "lustre.stripe_count: fixed value 64 breaks rule stripe_count_le_osts" in res.stderr


def test_export_before_any_trial_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["export", str(REPO / "experiments" / "campaigns" / "quickstart.yaml"), "--workdir", str(tmp_path / "w")])
    assert rc == 2
    assert "not found" in capsys.readouterr().err


def test_dry_run_of_datawarp_example_matches_capacity_rule(tmp_path: Path) -> None:
    res = cli("tune", str(REPO / "experiments" / "campaigns" / "cori-bb-vpic.yaml"), "--dry-run", "--trials", "6",
              "--workdir", str(tmp_path))
    assert res.returncode == 0, res.stderr
    blocks = res.stdout.split("# ---- trial ")[1:]
    assert 4 <= len(blocks) <= 6  # the default and the model's picks; later ones depend on the measurements
    for block in blocks:
        nodes = int(block.split("bb.nodes=")[1].split(",")[0])
        cap = int(block.split("capacity=")[1].split("GiB")[0])
        assert cap == int(nodes * 82)


def test_dry_run_of_lustre_example_matches_striping(tmp_path: Path) -> None:
    res = cli("tune", str(REPO / "experiments" / "campaigns" / "shaheen-lustre-wrfchem.yaml"), "--dry-run", "--trials", "5",
              "--workdir", str(tmp_path))
    assert res.returncode == 0, res.stderr
    for block in res.stdout.split("# ---- trial ")[2:]:  # trial 0 is the default: no striping is set
        count = int(block.split("lustre.stripe_count=")[1].split(",")[0])
        size = int(block.split("lustre.stripe_size=")[1].split(",")[0])
        assert f"lfs setstripe -c {count} -S {size >> 20}m" in block or f"-S {size >> 10}k" in block


@pytest.mark.slow
def test_tune_status_export_on_a_command_app(tmp_path: Path) -> None:
    app = tmp_path / "app.py"
    app.write_text("import os, json\nbw = 500.0 if os.environ.get('AUTOTUNE_PARAM_MPIIO_ROMIO_CB_WRITE') == 'disable' "
                   "else 100.0\nprint(json.dumps({'metrics': {'bandwidth_mib_s': bw}}))\n")
    data: dict[str, Any] = {"name": "cli", "app": {"command": [sys.executable, str(app)], "mpiexec": False, "ranks": 2,
                                                    "metric": {"extractor": "json"}},
                            "space": {"use": "local-romio", "only": ["mpiio.romio_cb_write"]},
                            "objective": {"metric": "bandwidth_mib_s"}, "sampler": {"name": "grid"}}
    c = tmp_path / "c.yaml"
    c.write_text(yaml.safe_dump(data))
    w = str(tmp_path / "w")
    res = cli("tune", str(c), "--trials", "4", "--repeats", "2", "--workdir", w)
    assert res.returncode == 0, res.stderr
    assert "romio_cb_write disable" in res.stdout and "5.00x the default" in res.stdout
    res = cli("status", str(c), "--workdir", w)
    assert "3 trials run" in res.stdout  # the grid's third point is the default's values: measured once
    res = cli("export", str(c), "--workdir", w, "--format", "romio")
    assert res.stdout.strip() == "romio_cb_write disable"
    res = cli("export", str(c), "--workdir", w, "--format", "json")
    assert '"romio_cb_write": "disable"' in res.stdout


def test_model_calibrate_exits_zero_and_prints_the_table() -> None:
    res = cli("model", "calibrate")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "Shaheen 361 GB PnetCDF restart" in res.stdout and "FAIL" not in res.stdout

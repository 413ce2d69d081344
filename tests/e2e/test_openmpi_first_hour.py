"""The Open MPI first hour with `system: local`: the profile takes the MPI the campaign's launcher runs, and
`check` and `tune --dry-run` refuse exactly where `tune` would, naming the cause and the fix."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from autotune.campaign import load_campaign
from autotune.testing import MISSING_OPENMPI, openmpi_stack

SOURCE = Path(__file__).with_name("programs") / "reopen.c"


def _campaign(tmp_path: Path, space: str) -> Path:
    if openmpi_stack() is None or shutil.which("mpicc.openmpi") is None:
        pytest.skip(MISSING_OPENMPI)
    exe = tmp_path / "reopen"
    if not exe.exists():
        subprocess.run(["mpicc.openmpi", "-O1", "-o", str(exe), str(SOURCE)], check=True, timeout=120)
    data: dict[str, Any] = {
        "name": "my-ompi-app",
        "app": {"command": [str(exe), "{data_dir}/out.dat"], "ranks": 4,
                "metric": {"extractor": "regex", "pattern": "bandwidth: ([0-9.]+)", "unit": "MiB/s"}},
        "system": "local",
        "space": space,
        "objective": {"metric": "write_bandwidth_mib_s", "repeats": 1},
        "budget": {"trials": 3, "run_timeout": "120s"},
        "launcher": {"name": "local", "mpiexec": "mpiexec.openmpi", "mpiexec_args": ["--oversubscribe"]},
        "tracking": {"enabled": False},
        "workdir": str(tmp_path / "work"),
    }
    path = tmp_path / f"{space}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.mark.mpi
def test_system_local_takes_the_launchers_mpi(tmp_path: Path) -> None:
    c = load_campaign(_campaign(tmp_path, "local-openmpi"))
    assert c.system.mpi_flavour == "openmpi" and "OpenRTE" in c.system.mpi_source


@pytest.mark.slow
@pytest.mark.mpi
@pytest.mark.parametrize("command", [["check"], ["tune", "--dry-run"], ["tune"]])
def test_check_dry_run_and_tune_refuse_alike_with_the_fix(tmp_path: Path, command: list[str]) -> None:
    path = _campaign(tmp_path, "local-romio")  # ROMIO's hints: a command under OMPIO never receives them
    env = openmpi_stack().environ()  # type: ignore[union-attr]
    proc = subprocess.run([sys.executable, "-m", "autotune.cli", *command, str(path)], capture_output=True, text=True,
                          timeout=300, env=env, check=False)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "searches nothing under Open MPI (detected: mpiexec.openmpi --version" in proc.stderr
    assert "fix: `space: local-openmpi`" in proc.stderr and "OK" not in proc.stdout


@pytest.mark.slow
@pytest.mark.mpi
def test_the_open_mpi_space_checks_ok(tmp_path: Path) -> None:
    path = _campaign(tmp_path, "local-openmpi")
    env = openmpi_stack().environ()  # type: ignore[union-attr]
    proc = subprocess.run([sys.executable, "-m", "autotune.cli", "check", str(path), "--config", "ompi.fcoll=individual"],
                          capture_output=True, text=True, timeout=300, env=env, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "OMPI_MCA_fcoll=individual" in out and "OMPI_MCA_io_ompio_num_aggregators" not in out
    assert "OK: the campaign can run" in out

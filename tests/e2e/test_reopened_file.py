"""A command that writes its file collectively and then reopens it on MPI_COMM_SELF (as upstream IOR does):
the hints are judged on the collective open, under MPICH's ROMIO and Open MPI's romio321, never on the last
(one-rank) open."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from autotune.testing import MISSING_OPENMPI, Stack, local_system_file, mpich_stack, openmpi_stack

SOURCE = Path(__file__).with_name("programs") / "reopen.c"
MPICC = {"mpich": "mpicc.mpich", "openmpi": "mpicc.openmpi"}


def _stack(name: str) -> Stack:
    stack = mpich_stack() if name == "mpich" else openmpi_stack()
    if stack is None or shutil.which(MPICC[name]) is None:
        pytest.skip(MISSING_OPENMPI)
    return stack


def _campaign(tmp_path: Path, stack: Stack) -> Path:
    exe = tmp_path / "reopen"
    subprocess.run([MPICC[stack.name], "-O1", "-o", str(exe), str(SOURCE)], check=True, timeout=120)
    args = list(stack.mpiexec_args) + (["--mca", "io", "romio321"] if stack.name == "openmpi" else [])
    data: dict[str, Any] = {
        "name": f"reopen-{stack.name}",
        "app": {"command": [str(exe), "{data_dir}/out.dat"], "ranks": 4,
                "metric": {"extractor": "regex", "pattern": "bandwidth: ([0-9.]+)", "unit": "MiB/s"}},
        "system": str(local_system_file(tmp_path, stack.name)),
        "target": {"filesystem": "disk"},
        "space": {"use": "local-romio", "only": ["mpiio.cb_nodes", "mpiio.romio_cb_write"]},
        "objective": {"metric": "write_bandwidth_mib_s", "repeats": 1},
        "budget": {"trials": 2, "run_timeout": "120s"},
        "launcher": {"name": "local", "mpiexec": stack.mpiexec, "mpiexec_args": args, "python": stack.python},
        "tracking": {"enabled": False},
        "workdir": str(tmp_path / "work"),
    }
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.mark.slow
@pytest.mark.mpi
@pytest.mark.parametrize("mpi", ["mpich", "openmpi"])
def test_hints_are_judged_on_the_collective_open(tmp_path: Path, mpi: str) -> None:
    stack = _stack(mpi)
    path = _campaign(tmp_path, stack)
    proc = subprocess.run([sys.executable, "-m", "autotune.cli", "check", str(path), "--config", "mpiio.cb_nodes=2"],
                          capture_output=True, text=True, timeout=300, env=stack.environ(), check=False)
    out = proc.stdout
    assert proc.returncode == 0, out + proc.stderr
    verified = out.split("settings verified in effect:")[1].split("settings ")[0]
    # ROMIO printed 13 blocks: the collective open (aggregators 0 1) and 12 one-rank reopens (the last of them)
    assert "cb_nodes=2: ROMIO's own report" in verified, out
    assert "widest of 13 opens" in verified and "romio_aggregator_list 0 1" in verified, out
    assert "NOT IN EFFECT" not in out and "not in effect" not in out.split("settings verified in effect:")[1]

"""The IOR-like kernel under both MPIs of this machine: what took effect is proved by the ranks that wrote
(and, under Open MPI, by the io/fcoll components the process loaded), never by an echo of the request."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from autotune.testing import MISSING_OPENMPI, Stack, mpich_stack, openmpi_stack

STRIDED = ("--block-size", "2MiB", "--transfer-size", "512KiB", "--layout", "strided", "--phases", "write")


def run(stack: Stack, tmp_path: Path, ranks: int, *options: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    data = tmp_path / "data"
    data.mkdir(exist_ok=True)
    cmd = [*stack.argv(ranks), stack.python, "-m", "mpi4py", "-m", "autotune.kernels.ior", "--dir", str(data), *options]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=180, cwd=tmp_path, check=False,
                          env={**stack.environ(), **(env or {})})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert list(data.iterdir()) == []
    rec: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return rec


@pytest.fixture
def ompi() -> Stack:
    stack = openmpi_stack()
    if stack is None:
        pytest.skip(MISSING_OPENMPI)
    return stack


def states(rec: dict[str, Any]) -> dict[str, str]:
    return {k: v["state"] for k, v in rec["verification"].items()}


def test_open_mpi_ompio_ignores_romio_hints_and_honours_cb_nodes(ompi: Stack, tmp_path: Path) -> None:
    rec = run(ompi, tmp_path, 4, *STRIDED, "--info", "cb_nodes=2", "--info", "romio_cb_write=enable")
    assert rec["library"] == "openmpi"
    assert rec["hints_in_effect"] == {"cb_nodes": "2", "romio_cb_write": "enable"}  # the echo ...
    assert states(rec) == {"cb_nodes": "in effect", "romio_cb_write": "not in effect"}  # ... proves nothing
    assert rec["writers"] == 2 and len(rec["write_bytes_per_rank"]) == 4
    assert set(rec["hints_not_in_effect"]) == {"romio_cb_write"}


def test_open_mpi_fcoll_individual_and_romio321_are_seen(ompi: Stack, tmp_path: Path) -> None:
    rec = run(ompi, tmp_path, 4, *STRIDED, env={"OMPI_MCA_fcoll": "individual"})
    assert states(rec) == {"mca:fcoll": "in effect"} and rec["writers"] == 4
    rec = run(ompi, tmp_path, 2, *STRIDED, "--info", "romio_cb_write=enable", "--info", "cb_nodes=2",
              env={"OMPI_MCA_io": "romio321"})
    assert rec["mpi_components"] == ["io:romio321"]
    # ROMIO inside Open MPI keeps cb_config_list=*:1: one aggregator on one node, whatever cb_nodes asks
    assert states(rec) == {"mca:io": "in effect", "romio_cb_write": "in effect", "cb_nodes": "not in effect"}


def test_mpich_verifies_by_write_counts_and_romio_report(tmp_path: Path) -> None:
    rec = run(mpich_stack(), tmp_path, 4, *STRIDED, "--info", "cb_nodes=2", "--info", "romio_cb_write=enable",
              "--info", "cb_config_list=*:*", env={"OMPI_MCA_fcoll": "individual"})
    assert rec["library"] == "mpich" and rec["writers"] == 2
    assert states(rec) == {"cb_nodes": "in effect", "romio_cb_write": "in effect", "cb_config_list": "in effect",
                           "mca:fcoll": "not in effect"}

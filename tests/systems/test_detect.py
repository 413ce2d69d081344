"""Detection on this machine for real (MPICH, ext4 under gVisor, /dev/shm tmpfs), and the probing paths an
MPI-less or Open MPI host takes, with stand-in ``mpiexec``/``ompi_info`` scripts that print recorded texts."""

from __future__ import annotations

import os
import shutil
import stat
import sys
import time
from pathlib import Path

import pytest

from autotune.systems import (
    detect_cores,
    detect_filesystem,
    detect_launcher,
    detect_mpi,
    detect_stack,
    detect_tools,
    launcher_flavour,
)

DATA = Path(__file__).parent / "data"
MPI_HERE = shutil.which("mpiexec") is not None


def _script(path: Path, body: str) -> str:
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_cores_from_slurm_then_affinity() -> None:
    assert detect_cores({"SLURM_CPUS_ON_NODE": "16"}).value == 16
    fact = detect_cores({})
    assert fact.value == len(os.sched_getaffinity(0)) and fact.mark == "detected"
    assert detect_cores({"SLURM_CPUS_ON_NODE": "zero"}).value == fact.value


def test_filesystem_here(tmp_path: Path) -> None:
    fs = detect_filesystem(tmp_path / "not" / "yet" / "created")
    assert fs is not None and fs.path == str(tmp_path.resolve()) and fs.kind == "posix"
    assert fs.fstype in ("ext4", "overlay", "xfs", "tmpfs", "btrfs")
    if Path("/dev/shm").is_dir():
        shm = detect_filesystem("/dev/shm")
        assert shm is not None and shm.fstype == "tmpfs" and not shm.network


def test_filesystem_from_statfs_without_mountinfo(tmp_path: Path) -> None:
    fs = detect_filesystem(tmp_path, mountinfo="")
    assert fs is not None and fs.source.startswith("statfs")
    assert fs.fstype == detect_filesystem(tmp_path).fstype  # type: ignore[union-attr]


@pytest.mark.skipif(not MPI_HERE, reason="no mpiexec on this machine")
def test_mpi_is_asked_here() -> None:
    stack = detect_mpi("mpiexec", sys.executable)
    assert stack.error == ""
    assert stack.library.library == "mpich" and stack.library.version
    assert stack.io_component == "romio" and stack.uses_romio
    assert detect_mpi("mpiexec", sys.executable) is stack  # cached per process: the same answer, not asked again


def test_missing_or_hung_mpi_is_an_answer_not_a_crash(tmp_path: Path) -> None:
    gone = detect_mpi(str(tmp_path / "no-mpiexec"), sys.executable)
    assert gone.library.library == "unknown" and "no-mpiexec" in gone.error
    hang = _script(tmp_path / "hang", "sleep 30")
    t0 = time.monotonic()
    stack = detect_mpi(hang, sys.executable, timeout=0.5)
    assert time.monotonic() - t0 < 5 and "no answer within 0.5 s" in stack.error
    broken = _script(tmp_path / "broken", "printf 'ModuleNotFoundError: No module named mpi4py\\033[0m\\n' >&2; exit 1")
    error = detect_mpi(broken, sys.executable).error
    assert "No module named mpi4py" in error and all(ch.isprintable() for ch in error)


def test_open_mpi_io_component_from_ompi_info(tmp_path: Path) -> None:
    """An Open MPI launcher: the library's text, then ``ompi_info`` beside ``mpiexec`` for the io component."""
    text = (DATA / "openmpi_4.1.4.txt").read_text()
    mpiexec = _script(tmp_path / "mpiexec", f"printf '%s' '{text}'")
    _script(tmp_path / "ompi_info", f"cat '{DATA / 'ompi_info_io_4.1.4.txt'}'")
    stack = detect_mpi(mpiexec, sys.executable)
    assert (stack.library.library, stack.library.version) == ("openmpi", "4.1.4")
    assert stack.io_component == "ompio" and stack.uses_romio is False and "ompio=30" in stack.io_reason
    romio = detect_mpi(mpiexec, sys.executable, mpiexec_args=["--mca", "io", "romio321"])
    assert romio.io_component == "romio321" and romio.uses_romio and "--mca io romio321" in romio.io_reason


def test_detect_stack_without_mpi(tmp_path: Path) -> None:
    found = detect_stack(tmp_path, mpi=False)
    assert found.mpi is None and found.filesystem is not None and found.cores.value >= 1
    assert set(detect_tools(("sh", "surely-not-a-tool"))) == {"sh", "surely-not-a-tool"}
    assert detect_tools(("surely-not-a-tool",))["surely-not-a-tool"] is None


def test_a_commands_mpi_is_its_launchers() -> None:
    """mpi4py here is MPICH's; a command started by Open MPI's mpiexec still runs Open MPI (``mpiexec --version``)."""
    assert launcher_flavour("mpiexec.openmpi (OpenRTE) 4.1.4\n\nReport bugs to http://www.open-mpi.org/") == "openmpi"
    assert launcher_flavour("mpiexec (Open MPI) 5.0.3") == "openmpi"
    assert launcher_flavour("HYDRA build details:\n    Version:  4.0.2") == "mpich"
    assert launcher_flavour("Intel(R) MPI Library for Linux* OS, Version 2021.6") == "mpich"
    assert launcher_flavour("srun: unrecognized option") is None
    if shutil.which("mpiexec.openmpi") is None:
        pytest.skip("Open MPI is not installed here: run `make setup-ompi` (make test does)")
    assert detect_launcher("mpiexec.openmpi")[0] == "openmpi" and detect_launcher("mpiexec.mpich")[0] == "mpich"
    stack = detect_mpi("mpiexec.openmpi", sys.executable, command=True)
    assert stack.flavour == "openmpi" and stack.io_component == "ompio" and not stack.error

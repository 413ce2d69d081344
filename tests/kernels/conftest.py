"""Run a kernel for real under mpiexec and parse its record."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest


@dataclass
class KernelRun:
    """What one ``mpiexec -n R python -m mpi4py -m autotune.kernels.NAME`` returned."""

    returncode: int
    stdout: str
    stderr_lines: list[str]

    @property
    def record(self) -> dict[str, Any]:
        lines = self.stdout.splitlines()
        assert len(lines) == 1, f"expected one JSON line on stdout, got {self.stdout!r}"
        return json.loads(lines[0])


Runner = Callable[..., KernelRun]


@pytest.fixture
def run_kernel(tmp_path: Path) -> Runner:
    """``run_kernel("ior", 2, "--block-size", "1MiB")``: data goes to ``tmp_path / "data"``."""
    data = tmp_path / "data"
    data.mkdir()

    def run(name: str, ranks: int, *options: str, data_dir: Path = data) -> KernelRun:
        cmd = ["mpiexec", "-n", str(ranks), sys.executable, "-m", "mpi4py", "-m", f"autotune.kernels.{name}",
               "--dir", str(data_dir), *options]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=180, cwd=tmp_path, check=False)
        stderr = [line for line in proc.stderr.splitlines() if "yaksa" not in line and line.strip()]
        return KernelRun(proc.returncode, proc.stdout, stderr)

    return run


@pytest.fixture
def check_record() -> Callable[[dict[str, Any], str, int, int], None]:
    """The invariants every successful record satisfies: ``check_record(rec, kernel, ranks, nbytes)``."""
    return _check_record


def _check_record(rec: dict[str, Any], kernel: str, ranks: int, nbytes: int) -> None:
    assert rec["autotune_record"] == 1
    assert rec["kernel"] == kernel
    assert rec["ranks"] == ranks
    assert rec["nodes"] == 1
    assert rec["bytes"] == nbytes
    assert set(rec["phases"]) == {"write", "read"}
    for name, phase in rec["phases"].items():
        assert phase["bytes"] == nbytes
        assert phase["seconds"] > 0
        assert phase["bandwidth_mib_s"] > 0
        assert rec["metrics"][f"{name}_bandwidth_mib_s"] == phase["bandwidth_mib_s"]
    total = rec["phases"]["write"]["seconds"] + rec["phases"]["read"]["seconds"]
    assert rec["metrics"]["seconds"] == pytest.approx(total)
    assert rec["metrics"]["bandwidth_mib_s"] == pytest.approx(2 * nbytes / 2**20 / total)
    assert rec["phases"]["read"]["cache_defeated"] is False
    assert rec["phases"]["read"]["cache_note"]
    assert rec["sync"] is True
    assert rec["aggregators"] >= 1
    assert "romio_aggregator_list" in rec["hints_in_effect"]
    assert rec["hints_in_effect"]["romio_filesystem_type"].startswith("UFS")

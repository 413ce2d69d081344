"""The VPIC-IO-like particle kernel, run for real under mpiexec."""

from __future__ import annotations

from pathlib import Path

import pytest

from autotune.kernels.vpic import BYTES_PER_PARTICLE, VARIABLES


def test_vpic_layout_is_vpic_io() -> None:
    assert [name for name, _ in VARIABLES] == ["x", "y", "z", "id1", "id2", "px", "py", "pz"]
    assert BYTES_PER_PARTICLE == 32


@pytest.mark.parametrize("ranks", [1, 2])
@pytest.mark.parametrize("io_mode", ["collective", "independent"])
def test_record_and_cleanup(run_kernel, check_record, tmp_path: Path, ranks: int, io_mode: str) -> None:
    out = run_kernel("vpic", ranks, "--particles-per-rank", "32Ki", "--io-mode", io_mode)
    assert out.returncode == 0, out.stderr_lines
    rec = out.record
    check_record(rec, "vpic", ranks, ranks * 32768 * 32)
    assert rec["options"]["particles_per_rank"] == 32768
    assert list((tmp_path / "data").iterdir()) == []


@pytest.mark.slow
def test_four_ranks(run_kernel, check_record) -> None:
    out = run_kernel("vpic", 4, "--particles-per-rank", "16Ki", "--info", "romio_cb_write=disable")
    assert out.returncode == 0, out.stderr_lines
    rec = out.record
    check_record(rec, "vpic", 4, 4 * 16384 * 32)
    assert rec["hints_in_effect"]["romio_cb_write"] == "disable"


def test_bad_option_is_one_line_exit_2(run_kernel) -> None:
    out = run_kernel("vpic", 2, "--particles-per-rank", "0")
    assert out.returncode == 2
    assert out.stderr_lines == ["autotune.kernels.vpic: error: argument --particles-per-rank: '0' must be a positive size"]

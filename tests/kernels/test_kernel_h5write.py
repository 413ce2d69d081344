"""The h5py 2-D array kernel (NERSC Cori I/O talk), run for real under mpiexec."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.mark.parametrize("ranks", [1, 2])
@pytest.mark.parametrize("decomposition", ["row", "column"])
def test_record_and_cleanup(run_kernel, check_record, tmp_path: Path, ranks: int, decomposition: str) -> None:
    out = run_kernel("h5write", ranks, "--size", "4MiB", "--decomposition", decomposition)
    assert out.returncode == 0, out.stderr_lines
    rec = out.record
    check_record(rec, "h5write", ranks, 4 * 2**20)
    assert rec["options"]["rows"] * rec["options"]["cols"] * 8 == 4 * 2**20
    assert list((tmp_path / "data").iterdir()) == []


def test_uneven_split_independent_aligned(run_kernel, check_record) -> None:
    out = run_kernel("h5write", 2, "--rows", "301", "--cols", "7", "--io-mode", "independent",
                     "--alignment", "64KiB", "--info", "romio_cb_write=disable")
    assert out.returncode == 0, out.stderr_lines
    rec = out.record
    check_record(rec, "h5write", 2, 301 * 7 * 8)
    assert rec["hints_in_effect"]["romio_cb_write"] == "disable"
    assert rec["options"]["alignment"] == 65536


def test_cb_nodes_capped_then_not(run_kernel) -> None:
    capped = run_kernel("h5write", 2, "--size", "1MiB", "--info", "cb_nodes=2").record
    assert capped["hints_not_in_effect"]["cb_nodes"]["in_effect"] == "1"
    ok = run_kernel("h5write", 2, "--size", "1MiB", "--info", "cb_nodes=2", "--info", "cb_config_list=*:*").record
    assert ok["aggregators"] == 2
    assert ok["hints_not_in_effect"] == {}


@pytest.mark.slow
def test_four_ranks_column_collective(run_kernel, check_record, tmp_path: Path) -> None:
    out = run_kernel("h5write", 4, "--size", "8MiB", "--info", "cb_nodes=4", "--info", "cb_config_list=*:*")
    assert out.returncode == 0, out.stderr_lines
    rec = out.record
    check_record(rec, "h5write", 4, 8 * 2**20)
    assert rec["aggregators"] == 4
    assert list((tmp_path / "data").iterdir()) == []


@pytest.mark.parametrize(("options", "message"), [
    (("--rows", "10"), "--rows and --cols go together"),
    (("--rows", "10", "--cols", "1"), "cannot be split over 2 ranks"),
    (("--decomposition", "diagonal"), "invalid choice"),
    (("--size", "lots"), "--size"),
])
def test_bad_option_is_one_line_exit_2(run_kernel, tmp_path: Path, options: tuple[str, ...], message: str) -> None:
    out = run_kernel("h5write", 2, *options)
    assert out.returncode == 2
    assert out.stdout == ""
    assert len(out.stderr_lines) == 1, out.stderr_lines
    assert out.stderr_lines[0].startswith("autotune.kernels.h5write: error:")
    assert message in out.stderr_lines[0]
    assert list((tmp_path / "data").iterdir()) == []

"""The IOR-like MPI-IO kernel, run for real under mpiexec."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

SMALL = ("--block-size", "1MiB", "--transfer-size", "256KiB", "--segments", "2")


@pytest.mark.parametrize("ranks", [1, 2])
def test_shared_collective_record_and_cleanup(run_kernel, check_record, tmp_path: Path, ranks: int) -> None:
    out = run_kernel("ior", ranks, *SMALL)
    assert out.returncode == 0, out.stderr_lines
    rec = out.record
    check_record(rec, "ior", ranks, ranks * 2 * 2**20)
    assert rec["options"]["file_mode"] == "shared"
    assert rec["options"]["block_size"] == 2**20
    assert list((tmp_path / "data").iterdir()) == []


@pytest.mark.parametrize("options", [
    ("--layout", "strided", "--io-mode", "independent"),
    ("--file-mode", "fpp",),
    ("--file-mode", "fpp", "--io-mode", "independent"),
])
def test_patterns_at_two_ranks(run_kernel, check_record, tmp_path: Path, options: tuple[str, ...]) -> None:
    out = run_kernel("ior", 2, *SMALL, *options)
    assert out.returncode == 0, out.stderr_lines
    check_record(out.record, "ior", 2, 2 * 2 * 2**20)
    assert list((tmp_path / "data").iterdir()) == []


def test_capped_cb_nodes_is_reported(run_kernel) -> None:
    rec = run_kernel("ior", 2, *SMALL, "--info", "cb_nodes=2").record
    assert rec["aggregators"] == 1
    assert rec["hints_not_in_effect"]["cb_nodes"]["in_effect"] == "1"
    assert "cb_config_list=*:*" in rec["hints_not_in_effect"]["cb_nodes"]["why"]


def test_cb_nodes_with_star_star_takes_effect(run_kernel, tmp_path: Path) -> None:
    hints = tmp_path / "hints.json"
    hints.write_text(json.dumps({"cb_nodes": "2", "cb_config_list": "*:*"}))
    rec = run_kernel("ior", 2, *SMALL, "--info-file", str(hints)).record
    assert rec["hints_requested"] == {"cb_nodes": "2", "cb_config_list": "*:*"}
    assert rec["aggregators"] == 2
    assert rec["hints_in_effect"]["romio_aggregator_list"].split() == ["0", "1"]
    assert rec["hints_not_in_effect"] == {}


def test_cb_write_disable_is_in_effect(run_kernel) -> None:
    rec = run_kernel("ior", 1, *SMALL, "--info", "romio_cb_write=disable").record
    assert rec["hints_in_effect"]["romio_cb_write"] == "disable"
    assert rec["hints_not_in_effect"] == {}


def test_striping_on_local_disk_is_not_in_effect(run_kernel) -> None:
    rec = run_kernel("ior", 1, *SMALL, "--info", "striping_factor=4").record
    assert "not Lustre" in rec["hints_not_in_effect"]["striping_factor"]["why"]


def test_keep_no_sync_and_one_phase(run_kernel, tmp_path: Path) -> None:
    out = run_kernel("ior", 2, *SMALL, "--keep", "--no-sync", "--phases", "write")
    rec = out.record
    assert set(rec["phases"]) == {"write"}
    assert rec["sync"] is False
    assert rec["metrics"]["bandwidth_mib_s"] == rec["phases"]["write"]["bandwidth_mib_s"]
    kept = list((tmp_path / "data").iterdir())
    assert len(kept) == 1 and kept[0].stat().st_size == rec["bytes"]


@pytest.mark.parametrize(("options", "message"), [
    (("--block-size", "1MiB", "--transfer-size", "384KiB"), "not a multiple of --transfer-size"),
    (("--block-size", "-4"), "--block-size"),
    (("--file-mode", "both"), "invalid choice"),
    (("--phases", "write,erase"), "--phases"),
    (("--info", "cb_nodes"), "KEY=VALUE"),
    (("--frobnicate",), "unrecognized arguments"),
])
def test_bad_option_is_one_line_exit_2(run_kernel, tmp_path: Path, options: tuple[str, ...], message: str) -> None:
    out = run_kernel("ior", 2, *options)
    assert out.returncode == 2
    assert out.stdout == ""
    assert len(out.stderr_lines) == 1, out.stderr_lines
    assert out.stderr_lines[0].startswith("autotune.kernels.ior: error:")
    assert message in out.stderr_lines[0]
    assert list((tmp_path / "data").iterdir()) == []


def test_missing_dir_is_a_usage_error(run_kernel, tmp_path: Path) -> None:
    out = run_kernel("ior", 1, data_dir=tmp_path / "nope")
    assert out.returncode == 2
    assert out.stderr_lines == [f"autotune.kernels.ior: error: --dir '{tmp_path / 'nope'}' is not a directory"]

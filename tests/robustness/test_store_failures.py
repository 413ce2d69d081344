"""Every store failure mode is answered in bounded time with one line, by every command: a refused or silent
PostgreSQL, a stopped gRPC proxy, an SQLite store locked by another process. ``ask`` and ``hints`` still
exit 0 (the defaults), ``tell`` spools; nothing is left in the work directory."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from autotune import _storelock
from autotune.testing import Blackhole, Outcome, assert_clean, closed_port, model_campaign_data, run_cli, write_campaign_yaml

CONNECT_S = 2  # the connection bound for these tests (10 s by default)
SLACK_S = 20.0  # start-up and a loaded 2-core machine on top of the bound
READERS = (["status"], ["export"], ["report", "--report", "REPORT"], ["tune", "--no-tracking"])
JOBS = (["ask"], ["tell", "--trial", "probe:1:" + "0" * 32, "--value", "3", "--timeout", "5s"], ["hints"])


@pytest.fixture(autouse=True)
def short_bounds(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(_storelock, "CONNECT_S", CONNECT_S)
    monkeypatch.setattr(_storelock, "SQLITE_BUSY_S", 1.0)
    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def silent() -> Iterator[int]:
    hole = Blackhole()
    try:
        yield hole.port
    finally:
        hole.close()


def _run(tmp_path: Path, argv: list[str], storage: str | None) -> tuple[float, Outcome]:
    path = tmp_path / "c.yaml"
    if not path.exists():
        write_campaign_yaml(path, model_campaign_data(tmp_path / "w"))
    argv = [a.replace("REPORT", str(tmp_path / "report")) for a in argv]
    extra = ["--storage", storage] if storage else []
    start = time.monotonic()
    o = run_cli(argv[0], str(path), *argv[1:], *extra)
    return time.monotonic() - start, o


def _check_all(tmp_path: Path, storage: str, says: str) -> None:
    for argv in READERS:
        took, o = _run(tmp_path, argv, storage)
        assert_clean(o, expect=says)
        assert took < SLACK_S, (argv, took)
    for argv in JOBS:
        took, o = _run(tmp_path, argv, storage)
        assert o.rc == 0 and "Traceback" not in o.err and "internal error" not in o.err, (argv, o.err)
        assert all(len(ln) < 400 for ln in o.err.splitlines())
        assert took < SLACK_S, (argv, took)
    assert not (tmp_path / "w").exists() and not (tmp_path / "report").exists()


def test_refused_postgresql(tmp_path: Path) -> None:
    _check_all(tmp_path, f"postgresql://127.0.0.1:{closed_port()}/autotune", "storage: cannot open")


def test_silent_postgresql(tmp_path: Path, silent: int) -> None:
    _check_all(tmp_path, f"postgresql://127.0.0.1:{silent}/autotune", "storage: cannot open")


def test_stopped_grpc_proxy(tmp_path: Path) -> None:
    _check_all(tmp_path, f"grpc://127.0.0.1:{closed_port()}", "no gRPC storage proxy")


def test_silent_grpc_proxy(tmp_path: Path, silent: int) -> None:
    _check_all(tmp_path, f"grpc://127.0.0.1:{silent}", "no gRPC storage proxy answers")


def test_locked_sqlite_is_busy_not_broken(tmp_path: Path) -> None:
    path = write_campaign_yaml(tmp_path / "c.yaml", model_campaign_data(tmp_path / "w"))
    assert run_cli("tune", str(path)).rc == 0
    holder = sqlite3.connect(tmp_path / "w" / "optuna.db", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another process's transaction, held for the whole test
    try:
        for argv in (["status"], ["export"], ["tune", "--no-tracking", "--trials", "5"]):
            start = time.monotonic()
            o = run_cli(argv[0], str(path), *argv[1:])
            assert_clean(o, expect="busy")
            assert "restore" not in o.err and "backup" not in o.err, o.err
            assert time.monotonic() - start < SLACK_S + 60
        for argv in JOBS:
            o = run_cli(argv[0], str(path), *argv[1:])
            assert o.rc == 0 and "Traceback" not in o.err and "internal error" not in o.err, (argv, o.err)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    after = run_cli("status", str(path))
    assert after.rc == 0 and "3 finished" in after.out  # the store was fine all along

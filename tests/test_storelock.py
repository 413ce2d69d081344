"""The set-up lock of a store: one process at a time, released when the holder dies."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from autotune._storelock import advisory_key, sqlite_path, store_lock
from autotune.errors import ConfigError
from autotune.testing import fresh_postgres_database

SERVER = os.environ.get("AUTOTUNE_TEST_POSTGRES_SERVER", "postgresql://postgres@127.0.0.1:5432")
HOLDER = """
import sys, time
from autotune._storelock import store_lock
with store_lock(sys.argv[1], "setup"):
    print("held", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def hold(url: str, seconds: float) -> subprocess.Popen[str]:
    p = subprocess.Popen([sys.executable, "-c", HOLDER, url, str(seconds)], stdout=subprocess.PIPE, text=True)
    assert p.stdout is not None and p.stdout.readline().strip() == "held"
    return p


def wait_behind_holder(url: str) -> float:
    """Seconds ``store_lock`` waited behind another process holding it for 1.5 s."""
    p = hold(url, 1.5)
    t0 = time.monotonic()
    with store_lock(url, "setup"):
        waited = time.monotonic() - t0
    p.wait(timeout=30)
    return waited


def test_sqlite_path_of_urls(tmp_path: Path) -> None:
    assert sqlite_path(f"sqlite:///{tmp_path}/a.db") == tmp_path / "a.db"
    assert sqlite_path("sqlite:///:memory:") is None
    assert sqlite_path("postgresql://u@h/db") is None
    assert advisory_key("x") == advisory_key("x") != advisory_key("y")


def test_sqlite_lock_waits_for_the_holder_then_times_out(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'optuna.db'}"
    assert wait_behind_holder(url) > 0.5
    p = hold(url, 30)
    try:
        with pytest.raises(ConfigError, match="set up by another process"), store_lock(url, "setup", wait=0.5):
            pass
    finally:
        p.kill()
        p.wait()


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_killed_holder_releases_the_lock(kind: str, tmp_path: Path) -> None:
    ctx = (fresh_postgres_database(SERVER, f"autotune_lock_{uuid.uuid4().hex[:10]}") if kind == "postgresql"
           else None)
    url = ctx.__enter__() if ctx is not None else f"sqlite:///{tmp_path / 'optuna.db'}"
    try:
        p = hold(url, 60)
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
        with store_lock(url, "setup", wait=20):
            pass
    finally:
        if ctx is not None:
            ctx.__exit__(None, None, None)


def test_postgres_lock_serialises_two_processes() -> None:
    with fresh_postgres_database(SERVER, f"autotune_lock_{uuid.uuid4().hex[:10]}") as url:
        assert wait_behind_holder(url) > 0.5
        with store_lock(url, "other"):  # another name is another lock
            pass


def test_unreachable_postgres_is_a_one_line_error() -> None:
    with pytest.raises(ConfigError, match="cannot open"), store_lock("postgresql://postgres@127.0.0.1:1/none", "x"):
        pass

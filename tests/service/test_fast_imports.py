"""What a production job's ``ask`` and ``hints`` import: asserted on module names (``python -X importtime``),
not on seconds, so the fast path stays fast on any machine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _imported(args: list[str], cwd: Path) -> tuple[set[str], str]:
    """The modules a ``python -X importtime`` process imported, and its stdout."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "AUTOTUNE_CACHE_DIR": str(cwd / "cache"), "PYTHONWARNINGS": "ignore"}
    res = subprocess.run([sys.executable, "-X", "importtime", *args], capture_output=True, text=True, env=env,
                         cwd=cwd, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    names = {line.split("|")[-1].strip() for line in res.stderr.splitlines() if line.startswith("import time:")}
    return names | {n.split(".")[0] for n in names}, res.stdout  # with each module's top package


def test_building_the_parser_imports_no_optuna_numpy_or_space(tmp_path: Path) -> None:
    names, _ = _imported(["-c", "from autotune.cli import build_parser; build_parser()"], tmp_path)
    assert "autotune.cli._main" in names  # the listing is real
    assert not names & {"optuna", "numpy", "sqlalchemy", "alembic", "autotune.space", "autotune.hints"}


@pytest.mark.slow
def test_ask_and_hints_on_a_set_up_store_skip_the_schema_machinery(campaign: Path, tmp_path: Path) -> None:
    store = ["--storage", f"sqlite:///{tmp_path}/jobs.db", "--timeout", "300s"]
    cli = ["-m", "autotune.cli"]
    first, out = _imported([*cli, "ask", str(campaign), *store, "--format", "json"], tmp_path)
    assert "alembic" in first  # a fresh store is set up (and stamped) by the first job
    ref = json.loads(out)["trial"]
    names, _ = _imported([*cli, "tell", str(campaign), *store, "--trial", ref, "--value", "900"], tmp_path)
    assert "alembic" not in names
    for command in (["ask", str(campaign), *store, "--explore", "0"], ["hints", str(campaign), *store]):
        names, out = _imported([*cli, *command], tmp_path)
        assert "optuna.storages._rdb.storage" in names and out.strip()  # it read the store, and answered
        assert "alembic" not in names, command[0]


@pytest.mark.slow
def test_ask_through_the_grpc_proxy_loads_no_sqlalchemy(campaign: Path, tmp_path: Path) -> None:
    """A compute node that reaches the store through ``autotune store serve`` never loads SQLAlchemy: the reason
    its imports in ``_storage``, ``_storelock`` and the service stay inside functions (``# lazy:``)."""
    sockets = tmp_path / "sockets"
    sockets.mkdir(mode=0o700)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "AUTOTUNE_CACHE_DIR": str(tmp_path / "cache")}
    proxy = subprocess.Popen([sys.executable, "-m", "autotune.cli", "store", "serve", "--storage",
                              f"sqlite:///{tmp_path}/jobs.db", "--socket-dir", str(sockets)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proxy.stdout is not None
        line = proxy.stdout.readline()  # printed once the store is open, before the proxy serves
        assert "--storage grpc+unix://" in line, proxy.stderr.read() if proxy.stderr else line
        url = line.split("--storage ", 1)[1].split(";", 1)[0]
        names, out = _imported(["-m", "autotune.cli", "ask", str(campaign), "--storage", url, "--timeout", "300s",
                                "--format", "json"], tmp_path)
    finally:
        proxy.terminate()
        proxy.wait(timeout=60)
    assert json.loads(out)["trial"]  # a trial of the store, not a fallback
    assert "optuna.storages._grpc.client" in names  # the listing is real, and the proxy was used
    assert "sqlalchemy" not in names

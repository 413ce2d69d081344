"""optuna-dashboard and `mlflow ui` start on a campaign's stores, bound to 127.0.0.1."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from autotune.testing.reports import EXPERIMENTS, autotune

BIN = Path(sys.executable).parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve_and_get(cmd: list[str], port: int, path: str = "/", timeout: float = 90.0) -> int:
    """Start ``cmd``, poll 127.0.0.1:port until it answers, GET ``path``, stop it; returns the HTTP status."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert proc.poll() is None, (proc.stderr.read() if proc.stderr else b"")[-2000:]
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
                    return int(r.status)
            except OSError:
                time.sleep(0.5)
        raise AssertionError(f"{cmd[0]} did not answer on 127.0.0.1:{port} within {timeout}s")
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("dash") / "work"
    proc = autotune("tune", str(EXPERIMENTS / "compare-wrfchem-bb.yaml"), "--trials", "3", "--workdir", str(work))
    assert proc.returncode == 0, proc.stderr[-2000:]
    return work


@pytest.mark.slow
def test_optuna_dashboard_starts_on_the_campaign_storage(stores: Path) -> None:
    port = _free_port()
    cmd = [str(BIN / "optuna-dashboard"), f"sqlite:///{stores / 'optuna.db'}", "--host", "127.0.0.1",
           "--port", str(port)]
    assert _serve_and_get(cmd, port, "/api/studies") == 200


@pytest.mark.slow
def test_mlflow_ui_starts_on_the_campaign_tracking_store(stores: Path) -> None:
    port = _free_port()
    cmd = [str(BIN / "mlflow"), "ui", "--backend-store-uri", f"sqlite:///{stores / 'mlflow.db'}",
           "--host", "127.0.0.1", "--port", str(port), "--workers", "1"]
    assert _serve_and_get(cmd, port, "/health", timeout=120) == 200

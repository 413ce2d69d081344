"""Compute nodes that may not reach the database: Optuna's gRPC storage proxy in front of PostgreSQL."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import optuna
import pytest
from optuna.trial import TrialState

from autotune.cli import main
from autotune.testing import fresh_postgres_database

SERVER = os.environ.get("AUTOTUNE_TEST_POSTGRES_SERVER", "postgresql://postgres@127.0.0.1:5432")
EXAMPLE = Path(__file__).resolve().parents[2] / "experiments" / "campaigns" / "model-theta-ior.yaml"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow
def test_ask_and_tell_through_the_grpc_proxy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    port = free_port()
    with fresh_postgres_database(SERVER, f"autotune_grpc_{uuid.uuid4().hex[:10]}") as url:
        proxy = subprocess.Popen([sys.executable, "-m", "autotune.cli", "store", "serve", "--storage", url,
                                  "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                with socket.socket() as s:
                    if s.connect_ex(("127.0.0.1", port)) == 0:
                        break
                assert proxy.poll() is None, proxy.communicate()[1]
                time.sleep(0.3)
            grpc = f"grpc://127.0.0.1:{port}"
            common = [str(EXAMPLE), "--storage", grpc, "--workdir", str(tmp_path / "w"), "--timeout", "300s"]
            assert main(["ask", *common]) == 0
            ref = next(ln.split("=", 1)[1] for ln in capsys.readouterr().out.splitlines() if "AUTOTUNE_TRIAL=" in ln)
            assert main(["tell", *common, "--trial", ref, "--value", "1234"]) == 0
            t = optuna.load_study(study_name="model-theta-ior", storage=url).trials[0]  # straight from PostgreSQL
            assert t.state == TrialState.COMPLETE and t.value == 1234
        finally:
            proxy.terminate()
            proxy.wait(timeout=30)
    assert main(["ask", str(EXAMPLE), "--storage", "grpc://no port"]) == 2

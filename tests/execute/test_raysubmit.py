"""`autotune submit`: a model campaign on a local Ray cluster through the Ray Jobs API, token auth on."""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from autotune.testing import descendants, is_loopback, listeners

EXAMPLE = Path(__file__).resolve().parents[2] / "experiments" / "campaigns" / "model-theta-ior.yaml"
RAY = Path(sys.executable).with_name("ray")
pytestmark = pytest.mark.ray


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[tuple[str, dict[str, str]]]:
    """A private head node on 127.0.0.1 with token authentication, stopped with its process group."""
    pytest.importorskip("ray.job_submission", reason="the ray extra is not installed (pip install 'autotune[ray]')")
    # Ray's session sockets live under --temp-dir and a Unix socket path has at most 107 bytes: pytest's temporary
    # directories (under xdist, .../popen-gwN/...) are too deep for them
    tmp = Path(tempfile.mkdtemp(prefix="at-ray-"))
    # token auth on; a single-machine head (RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0) so it listens on 127.0.0.1 only
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32),
           "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
    dash = free_port()
    with (tmp / "head.err").open("w") as err:  # the head keeps its own copy of the descriptor
        head = subprocess.Popen([str(RAY), "start", "--head", "--block", "--node-ip-address=127.0.0.1",
                                 f"--port={free_port()}", "--dashboard-host=127.0.0.1", f"--dashboard-port={dash}",
                                 "--include-dashboard=true", "--num-cpus=1", f"--temp-dir={tmp}",
                                 "--disable-usage-stats"],
                                env=env, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
    address = f"http://127.0.0.1:{dash}"
    try:
        deadline = time.monotonic() + 240
        while True:
            try:
                urllib.request.urlopen(f"{address}/api/version", timeout=5)
                break
            except urllib.error.HTTPError:
                break  # it answers (401 without the token): it is up
            except OSError:
                assert head.poll() is None and time.monotonic() < deadline, \
                    f"ray start --head did not come up: {(tmp / 'head.err').read_text()[-2000:]}"
                time.sleep(1.0)
        found = listeners(descendants(head.pid))
        assert found, "the head's processes should hold listening sockets (the check would be empty otherwise)"
        exposed = [(a, p) for a, p, _ in found if not is_loopback(a)]
        assert not exposed, f"the test's Ray head listens beyond loopback: {exposed}"
        yield address, env
    finally:
        started = descendants(head.pid)
        os.killpg(head.pid, signal.SIGTERM)
        try:
            head.wait(timeout=5)  # a graceful Ray stop takes ~30 s here; what it leaves is killed below
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
        subprocess.run(["pkill", "-9", "-f", str(tmp)], check=False)  # what the head left, ours only
        for pid in started:  # workers outside the head's process group (job supervisors, agents)
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(tmp, ignore_errors=True)


def cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "autotune.cli", *args], capture_output=True, text=True, env=env,
                          timeout=600)


@pytest.mark.slow
def test_submit_runs_a_campaign_with_status_logs_and_auth(ray_cluster: tuple[str, dict[str, str]], tmp_path: Path) -> None:
    address, env = ray_cluster
    data = yaml.safe_load(EXAMPLE.read_text())
    data.pop("workdir", None)
    campaign = tmp_path / "campaign.yaml"
    campaign.write_text(yaml.safe_dump(data))
    storage = f"sqlite:///{tmp_path / 'optuna.db'}"  # outside the shipped working dir: it outlives the job
    res = cli("submit", str(campaign), "--address", address, "--python", sys.executable, "--wait",
              "--tune-args", f"--trials 3 --no-tracking --storage {storage}", env=env)
    assert res.returncode == 0, res.stderr
    sid = res.stdout.splitlines()[0]
    assert sid.startswith("raysubmit_") and "3 trials run" in res.stdout
    assert cli("submit", "--address", address, "--status", sid, env=env).stdout.strip() == "SUCCEEDED"
    assert "hints to paste" in cli("submit", "--address", address, "--logs", sid, env=env).stdout
    import optuna

    assert len(optuna.load_study(study_name=data["name"], storage=storage).trials) >= 3
    no_token = {k: v for k, v in env.items() if k != "RAY_AUTH_TOKEN"}
    denied = cli("submit", "--address", address, "--status", sid, env={**no_token, "RAY_AUTH_TOKEN_PATH": "/nonexistent"})
    assert denied.returncode != 0 and "Traceback" not in denied.stderr  # authentication stays on
    bad = cli("submit", "--address", address, "--status", "x; rm -rf /", env=env)
    assert bad.returncode == 2

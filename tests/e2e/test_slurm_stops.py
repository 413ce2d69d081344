"""Campaigns whose jobs cannot start, or that are stopped while a job waits, on the local Slurm (one node, 2 CPUs)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import optuna
import pytest
import yaml

from autotune.testing import ensure_local_slurm, queued_jobs

pytestmark = [pytest.mark.slurm, pytest.mark.slow]
CLI = [sys.executable, "-m", "autotune.cli"]


@pytest.fixture(scope="module", autouse=True)
def slurm() -> Iterator[str]:
    yield ensure_local_slurm()


def _queued(name: str) -> list[str]:
    return queued_jobs(f"autotune-{name}-")


def _campaign(tmp: Path, name: str, ranks: int, launcher: dict[str, Any]) -> Path:
    data: dict[str, Any] = {
        "name": name,
        "app": {"command": [sys.executable, "-c", "import json; print(json.dumps({'metrics': {'bw': 1.0}}))"],
                "mpiexec": False, "ranks": ranks, "metric": {"extractor": "json"}},
        "space": {"use": "local-romio", "only": ["mpiio.romio_cb_write"]},
        "objective": {"repeats": 1, "metric": "bw"}, "budget": {"trials": 2, "run_timeout": "60s"},
        "tracking": {"enabled": False}, "launcher": {"name": "slurm", "poll_interval": 0.2, **launcher},
        "workdir": str(tmp / "w"),
    }
    path = tmp / "c.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_campaign_asking_for_more_cpus_than_the_node_has_stops_at_once(tmp_path: Path) -> None:
    name = f"cpus{os.getpid()}"
    path = _campaign(tmp_path, name, ranks=4, launcher={})
    start = time.monotonic()
    out = subprocess.run([*CLI, "tune", str(path)], capture_output=True, text=True, timeout=60)
    assert time.monotonic() - start < 60
    assert out.returncode == 2, out.stdout + out.stderr
    [line] = out.stderr.strip().splitlines()
    assert line.startswith("autotune: error: launcher: Slurm cannot run the first trial's job (sbatch --test-only: "
                           "Requested node configuration is not available); use fewer ranks")
    assert _queued(name) == []
    assert not (tmp_path / "w" / "runs").exists()  # nothing ran, nothing submitted
    dry = subprocess.run([*CLI, "tune", str(path), "--dry-run"], capture_output=True, text=True, timeout=60)
    # the scripts are shown, then the scheduler's verdict (a warning: a dry run of another site's campaign
    # on a machine whose Slurm cannot run it still shows its scripts)
    assert dry.returncode == 0 and "#SBATCH --ntasks=4" in dry.stdout
    assert dry.stderr.strip() == line.replace("autotune: error: ", "autotune: warning: ") + \
        " (the campaign would stop here with exit code 2)"
    ok = subprocess.run([*CLI, "tune", str(_campaign(tmp_path, name, 2, {})), "--dry-run"], capture_output=True,
                        text=True, timeout=60)
    assert ok.returncode == 0 and "\n# preflight: sbatch --test-only: Job " in ok.stdout


def test_sigterm_while_the_job_is_pending_leaves_the_queue_empty(tmp_path: Path) -> None:
    name = f"term{os.getpid()}"
    path = _campaign(tmp_path, name, ranks=1, launcher={"sbatch_args": ["--begin=now+1hour"]})
    proc = subprocess.Popen([*CLI, "tune", str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    job_json = tmp_path / "w" / "runs" / name / "trial-0000" / "rep-0" / "job.json"
    deadline = time.monotonic() + 60
    while not (job_json.exists() and _queued(name)) and time.monotonic() < deadline:
        time.sleep(0.2)
    [queued] = _queued(name)
    job_id = queued.split("|")[0]
    assert queued.endswith("|PENDING|BeginTime")
    time.sleep(1)
    status = subprocess.run([*CLI, "status", str(path)], capture_output=True, text=True, timeout=60)
    assert f"  trial 0: slurm job {job_id} pending for " in status.stdout, status.stdout + status.stderr
    assert "(Slurm: BeginTime, clears by itself" in status.stdout
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stdout + stderr
    assert f"cancelled slurm job {job_id} (autotune-{name}-t0, pending)" in stdout
    assert _queued(name) == []
    # resumed without the hold: the cancelled job is not adopted, the configuration runs in a new job
    path = _campaign(tmp_path, name, ranks=1, launcher={})
    out = subprocess.run([*CLI, "tune", str(path)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    study = optuna.load_study(study_name=name, storage=f"sqlite:///{tmp_path / 'w' / 'optuna.db'}")
    [retry] = [t for t in study.trials if t.user_attrs.get("retry_of") == 0]
    assert retry.state.name == "COMPLETE" and retry.user_attrs["run_info"][0]["job_id"] != job_id, out.stdout
    assert _queued(name) == []


def test_sigterm_while_the_step_allocation_is_pending_leaves_the_queue_empty(tmp_path: Path) -> None:
    name = f"steps{os.getpid()}"
    path = _campaign(tmp_path, name, ranks=1, launcher={"name": "slurm-step"})
    blocker = subprocess.run(["sbatch", "--parsable", "--output=/dev/null", "-n", "2", "-J", f"autotune-{name}-blocker",
                              "--wrap=sleep 120"],
                             capture_output=True, text=True, check=True).stdout.strip()
    try:
        # the blocker must hold the node's CPUs before the campaign asks: two pending jobs may start in either order
        deadline = time.monotonic() + 60
        while not any(q.startswith(f"{blocker}|") and "|RUNNING|" in q for q in _queued(name)) \
                and time.monotonic() < deadline:
            time.sleep(0.2)
        assert any(q.startswith(f"{blocker}|") and "|RUNNING|" in q for q in _queued(name)), _queued(name)
        proc = subprocess.Popen([*CLI, "tune", str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while not any(f"autotune-{name}-steps|PENDING" in q for q in _queued(name)) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert any(f"autotune-{name}-steps|PENDING" in q for q in _queued(name)), _queued(name)
        time.sleep(1)
        proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=60)
        assert proc.returncode == 130, stdout + stderr
        assert [q.split("|")[0] for q in _queued(name)] == [blocker]  # the pending allocation is gone
        assert re.search(r"cancelled the pending step-mode allocation \(slurm job \d+\)", stdout), stdout
    finally:
        subprocess.run(["scancel", blocker], check=False)

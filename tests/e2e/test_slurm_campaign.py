"""A real campaign through the Slurm launcher on the local Slurm (one job per trial)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import optuna
import pytest
import yaml

from autotune.campaign import CampaignLoop, load_campaign, ran_trials
from autotune.testing import ensure_local_slurm

REPO = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slurm, pytest.mark.slow]


@pytest.fixture(scope="module", autouse=True)
def slurm() -> Iterator[str]:
    yield ensure_local_slurm()


def _sacct(job_id: str) -> tuple[str, str]:
    out = subprocess.run(["sacct", "-c", "-j", job_id, "-n", "-P", "-o", "jobid,state"], capture_output=True,
                         text=True, check=True).stdout
    jid, state = out.strip().splitlines()[0].split("|")[:2]
    return jid, state


def test_slurm_local_campaign_stores_job_ids_that_sacct_knows(tmp_path: Path) -> None:
    c = load_campaign(REPO / "experiments" / "campaigns" / "slurm-local.yaml")
    # No confirmation: each of its runs would be one more Slurm job (it has its own tests, test_confirm.py).
    c = c.with_overrides(workdir=tmp_path, budget=c.budget.__class__(3, None, c.budget.run_timeout),
                         tracking={"enabled": False}, objective=replace(c.objective, confirm=0))
    res = CampaignLoop(c, progress=False, out=open(os.devnull, "w")).run()
    trials = ran_trials(res.study)
    assert len(trials) == 3
    for t in trials:
        assert t.state.name == "COMPLETE", t.user_attrs.get("error")
        infos = t.user_attrs["run_info"]
        assert len(infos) == len(t.user_attrs["repetitions"]) >= 1
        for job_id in {i["job_id"] for i in infos}:
            jid, state = _sacct(job_id)
            assert jid == job_id and state == "COMPLETED"
        assert all(v > 0 for v in t.user_attrs["repetitions"])


def _jobs_named(job_name: str) -> list[str]:
    out = subprocess.run(["sacct", "-c", "-n", "-P", "-o", "jobid,jobname"], capture_output=True, text=True).stdout
    live = subprocess.run(["squeue", "-h", "-o", "%i|%j"], capture_output=True, text=True).stdout
    ids = {line.split("|")[0] for line in (out + live).splitlines() if line.split("|")[-1] == job_name}
    return sorted(ids)


def test_killed_campaign_with_a_running_job_does_not_submit_it_twice(tmp_path: Path) -> None:
    # The app writes into its data directory (the job's working directory) before and after the kill: the
    # resumed campaign must leave the directory of the job it adopts alone until it has collected the job.
    app = tmp_path / "app.py"
    app.write_text("import json, os, time\nopen('part1', 'w').write('x')\n"
                   "if os.environ['AUTOTUNE_TRIAL'] == '1':\n    time.sleep(8)\n"
                   "open('part2', 'w').write('x')\nassert os.path.exists('part1'), 'part1 was removed'\n"
                   "print(json.dumps({'metrics': {'bandwidth_mib_s': 100.0}}))\n")
    name = f"kill{os.getpid()}x{int(time.time())}"
    data: dict[str, Any] = {
        "name": name, "app": {"command": [sys.executable, str(app)], "mpiexec": False, "ranks": 1,
                              "metric": {"extractor": "json"}},
        "space": {"use": "local-romio", "only": ["mpiio.romio_cb_write"]},
        "objective": {"repeats": 1, "metric": "bandwidth_mib_s", "confirm": 0},  # no confirmation jobs
        "budget": {"trials": 3, "run_timeout": "60s"}, "tracking": {"enabled": False},
        "launcher": {"name": "slurm", "poll_interval": 0.2, "overcommit": True}, "workdir": str(tmp_path / "w"),
    }
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(data))
    cmd = [sys.executable, "-m", "autotune.cli", "tune", str(path)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    db = tmp_path / "w" / "optuna.db"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if (tmp_path / "w" / "runs" / name / "trial-0001" / "rep-0" / "job.json").exists():
            break
        time.sleep(0.2)
    else:
        os.killpg(proc.pid, signal.SIGKILL)
        raise AssertionError("trial 1's job was never submitted")
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    before = _jobs_named(f"autotune-{name}-t1")
    assert len(before) == 1
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr
    assert _jobs_named(f"autotune-{name}-t1") == before  # recovered, not submitted again
    s = optuna.load_study(study_name=name, storage=f"sqlite:///{db}")
    retry = [t for t in s.trials if t.user_attrs.get("retry_of") == 1]
    assert len(retry) == 1
    assert retry[0].state.name == "COMPLETE", (retry[0].user_attrs.get("error"), retry[0].user_attrs.get("run_info"))
    assert retry[0].user_attrs["run_info"][0]["job_id"] == before[0]
    assert len(ran_trials(s)) == 3
    assert re.match(r"^\d+$", before[0])
    data = load_campaign(path).data_root  # the adopted job's data went once it was collected
    assert not [p.name for p in data.glob(f"{name}-t*")] if data.is_dir() else True

from __future__ import annotations

import os
import signal
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import optuna
import pytest
from optuna.trial import TrialState

from autotune.campaign import CampaignLoop, load_campaign, ran_trials


def run(path: Path, **over: Any) -> Any:
    c = load_campaign(path)
    if over:
        c = c.with_overrides(**over)
    return CampaignLoop(c, progress=False, out=open(os.devnull, "w")).run()


def test_campaign_runs_default_first_and_records_repetitions(make_campaign: Any) -> None:
    res = run(make_campaign())
    trials = ran_trials(res.study)
    assert len(trials) == 4
    first = res.study.trials[0]
    assert first.user_attrs["is_default"] is True
    assert first.params["mpiio.romio_cb_write"] == "automatic"
    for t in trials:
        reps = t.user_attrs["repetitions"]
        assert len(reps) == 2 and all(r is not None for r in reps)
        assert t.value == statistics.median(reps)  # objective.aggregate: the median of N by default
    assert res.summary["best_value"] >= first.value
    assert "speedup_over_default" in res.summary


def test_no_benchmark_data_left_behind(make_campaign: Any) -> None:
    res = run(make_campaign())
    data_root = res.runtime.campaign.data_root
    assert not data_root.exists() or not any(data_root.iterdir())


def test_running_again_resumes_up_to_the_total(make_campaign: Any) -> None:
    path = make_campaign(budget={"trials": 2})
    run(path)
    c = load_campaign(path)
    res = run(path, budget=c.budget.__class__(5, None, c.budget.run_timeout))
    assert len(ran_trials(res.study)) == 5 and res.trials_run_now == 3
    res = run(path, budget=c.budget.__class__(5, None, c.budget.run_timeout))
    assert res.trials_run_now == 0 and res.stopped_by == "trials"
    assert sum(bool(t.user_attrs.get("is_default")) for t in res.study.trials) == 1


def test_failed_and_hung_runs_are_failed_trials_and_the_campaign_goes_on(
        make_campaign: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_FAIL_TRIALS", "1")
    monkeypatch.setenv("FAKE_HANG_TRIALS", "2")
    res = run(make_campaign(budget={"trials": 4, "run_timeout": "2s"}, objective={"repeats": 1}))
    states = {t.number: t for t in ran_trials(res.study)}
    assert states[1].state == TrialState.FAIL and "exit code 1" in states[1].user_attrs["error"]
    assert "failing on purpose" in states[1].user_attrs["stderr_tail"]
    assert states[2].state == TrialState.FAIL and "timed out" in states[2].user_attrs["error"]
    assert states[3].state == TrialState.COMPLETE


def test_configurations_that_break_a_rule_are_never_run(make_campaign: Any, tmp_path: Path) -> None:
    space = tmp_path / "tiny.yaml"
    space.write_text(
        "name: tiny\nparameters:\n  mpiio.cb_nodes: {type: pow2, low: 1, high: 4, default: 1}\n"
        "  mpiio.romio_cb_write: {type: categorical, choices: [automatic, enable, disable]}\n"
        "  mpiio.romio_ds_write: {type: categorical, choices: [automatic, enable, disable]}\n"
        "rules:\n  - {name: at_most_two, rule: 'mpiio.cb_nodes <= 2'}\n")
    res = run(make_campaign(space=str(space), budget={"trials": 8}, sampler={"name": "random", "seed": 0}))
    ran = ran_trials(res.study)
    assert len(ran) == 8
    assert all(t.params["log2(mpiio.cb_nodes)"] <= 1 for t in ran)
    skipped = [t for t in res.study.trials if t.user_attrs.get("infeasible")]
    assert skipped and all(t.user_attrs["infeasible"] == ["at_most_two"] for t in skipped)
    assert res.study.best_trial.number in {t.number for t in ran}


def _wait_running(db: Path, number: int, timeout: float = 60) -> None:
    """Until trial ``number`` is claimed by its worker (all its parameters written, its run about to start).

    RUNNING alone is not enough: Optuna writes the parameters one by one after that, and a kill between
    them leaves a trial with part of a configuration. The SQLite file is polled read-only (a second
    writer initialising it would race the campaign).
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if db.exists():
            try:
                con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
                rows = con.execute("select t.number from trials t join trial_user_attributes a on a.trial_id = t.trial_id "
                                   "where t.state = 'RUNNING' and a.key = 'worker'").fetchall()
                con.close()
                if (number,) in rows:
                    return
            except sqlite3.Error:
                time.sleep(0.2)
        time.sleep(0.3)
    raise AssertionError(f"trial {number} never started")


@pytest.mark.slow
def test_kill_9_then_the_same_command_resumes(make_campaign: Any, tmp_path: Path) -> None:
    path = make_campaign(budget={"trials": 4, "run_timeout": "60s"}, objective={"repeats": 1})
    env = {**os.environ, "FAKE_HANG_TRIALS": "2"}
    cmd = [sys.executable, "-m", "autotune.cli", "tune", str(path)]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    c = load_campaign(path)
    try:
        _wait_running(c.workdir / "optuna.db", 2)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    before = {t.number: t.value for t in ran_trials(optuna.load_study(study_name=c.study, storage=c.storage))
              if t.state == TrialState.COMPLETE}
    out = subprocess.run(cmd, env={**os.environ, "FAKE_HANG_TRIALS": ""}, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "interrupted" in out.stdout
    s = optuna.load_study(study_name=c.study, storage=c.storage)
    t2 = s.trials[2]
    assert t2.state == TrialState.FAIL and "interrupted" in t2.user_attrs["error"]
    retry = [t for t in s.trials if t.user_attrs.get("retry_of") == 2]
    assert len(retry) == 1 and retry[0].state == TrialState.COMPLETE and retry[0].params == t2.params
    after = {t.number: t.value for t in s.trials if t.state == TrialState.COMPLETE and t.user_attrs.get("ran")}
    assert all(after[n] == v for n, v in before.items())
    assert len(ran_trials(s)) == 4

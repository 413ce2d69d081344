"""kill -9 the campaign at each named step of a trial's life (``autotune._killpoint``), resume it, and check: no
configuration completes twice, and the interrupted one runs again exactly once (never zero times)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import optuna
import pytest
import yaml
from optuna.distributions import IntDistribution
from optuna.trial import FrozenTrial, TrialState

from autotune import _killpoint, trialrecord
from autotune._storage import make_storage
from autotune.campaign import CampaignLoop, load_campaign, ran_trials
from autotune.campaign.study import _study

BUDGET = 4
CAMPAIGN: dict[str, Any] = {  # the model launcher: a trial takes milliseconds, the loop's steps are the real ones
    "name": "steps",
    "app": {"name": "ior-model", "command": ["ior"], "ranks": 64, "nodes": 4, "metric": {"extractor": "json"},
            "pattern": {"bytes_per_rank": "16MiB", "transfer_size": "1MiB", "io_mode": "collective",
                        "library": "mpiio"}},
    "system": "theta", "target": {"filesystem": "projects"}, "space": {"use": "lustre-cray"},
    "objective": {"metric": "write_bandwidth_mib_s", "direction": "maximize", "repeats": 1, "confirm": 0},
    "budget": {"trials": BUDGET, "run_timeout": "60s"},
    "sampler": {"name": "random", "seed": 1},
    "launcher": {"name": "model"},
    "tracking": {"enabled": False},
}


@pytest.fixture
def campaign(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(_study, "UNCLAIMED_S", 0.2)  # the in-process resume: a trial nobody claimed, at once
    monkeypatch.delenv(_killpoint.ENV, raising=False)
    path = tmp_path / "steps.yaml"
    path.write_text(yaml.safe_dump({**CAMPAIGN, "workdir": str(tmp_path / "work")}))
    return path


def killed_at(path: Path, step: str) -> None:
    """``autotune tune`` in a process that kills itself (SIGKILL) at ``step`` (``STEP@N``: the N-th time)."""
    env = {**os.environ, _killpoint.ENV: step}
    out = subprocess.run([sys.executable, "-m", "autotune.cli", "tune", str(path)], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == -9, f"not killed at {step}: exit {out.returncode}\n{out.stdout}\n{out.stderr}"


def resume(path: Path, trials: int = BUDGET) -> optuna.Study:
    """Resume in this process (the same loop as ``tune``) up to ``trials`` and return the study."""
    c = load_campaign(path)
    c = c.with_overrides(budget=c.budget.__class__(trials, None, c.budget.run_timeout))
    with open(os.devnull, "w") as out:
        res = CampaignLoop(c, progress=False, out=out).run()
    assert res.stopped_by == "trials"
    return res.study


def study_of(path: Path) -> optuna.Study:
    c = load_campaign(path)
    return optuna.load_study(study_name=c.study, storage=c.storage)


def key(t: FrozenTrial) -> tuple[Any, ...]:
    return tuple(sorted(t.params.items()))


def completed(study: optuna.Study) -> Counter[tuple[Any, ...]]:
    """How many times each non-default configuration completed (really run)."""
    return Counter(key(t) for t in ran_trials(study)
                   if t.state == TrialState.COMPLETE and not t.user_attrs.get("is_default"))


def check_resumed(study: optuna.Study, victim: int) -> None:
    """Nothing left running or twice completed; every interrupted trial has one retry; ``victim``'s configuration
    (the trial the kill hit) completed exactly once."""
    trials = study.get_trials(deepcopy=False)
    assert not study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))
    assert len(ran_trials(study)) == BUDGET
    twice = {k: n for k, n in completed(study).items() if n > 1}
    assert not twice, f"configurations completed more than once: {twice}"
    for t in trials:
        if t.user_attrs.get("interrupted"):
            retries = [r for r in trials if r.user_attrs.get("retry_of") == t.number]
            assert len(retries) == 1, f"trial {t.number} (interrupted) has {len(retries)} retries"
            assert retries[0].params == trials[t.number].params or not trials[t.number].params
    v = trials[victim]
    same = [t for t in ran_trials(study) if t.state == TrialState.COMPLETE and t.params == v.params
            and bool(t.user_attrs.get("is_default")) == bool(v.user_attrs.get("is_default"))]
    assert len(same) == 1, f"trial {victim}'s configuration completed {len(same)} times"


# Trial 0 is the default (queued first), trial 1 the sampler's first proposal: `@2` hits trial 1.
@pytest.mark.slow
@pytest.mark.parametrize("step", ["ask:asked@2", "ask:claimed@2", "run:finished@2", "record:written@2",
                                  "record:told@2"])
def test_a_kill_at_each_step_of_a_trial_runs_its_configuration_once(campaign: Path, step: str) -> None:
    killed_at(campaign, step)
    before = study_of(campaign).trials[1]
    assert before.state == (TrialState.COMPLETE if step.startswith("record:told") else TrialState.RUNNING)
    check_resumed(resume(campaign), 1)


@pytest.mark.slow
def test_a_kill_while_the_default_is_asked_measures_the_default_once(campaign: Path) -> None:
    killed_at(campaign, "ask:asked@1")
    study = resume(campaign)
    check_resumed(study, 0)
    assert sum(bool(t.user_attrs.get("is_default")) for t in ran_trials(study)) == 1


@pytest.mark.slow
@pytest.mark.parametrize("step", ["recover:marked", "recover:enqueued", "recover:failed"])
def test_a_kill_during_the_recovery_of_an_interrupted_trial_reruns_it_once(campaign: Path, step: str) -> None:
    killed_at(campaign, "ask:claimed@2")  # trial 1 is left RUNNING by a dead worker
    killed_at(campaign, step)  # the resume recovering it is killed too
    check_resumed(resume(campaign), 1)


@pytest.mark.slow
def test_a_kill_while_a_queued_retry_is_asked_reruns_it_once(campaign: Path) -> None:
    killed_at(campaign, "ask:claimed@2")  # trial 1 interrupted
    killed_at(campaign, "ask:asked@1")  # the resume queues its retry (trial 2), asks for it and dies
    check_resumed(resume(campaign), 1)


@pytest.mark.slow
def test_a_kill_while_a_queued_twin_is_asked_does_not_run_it(campaign: Path) -> None:
    """A queued configuration that already completed (a warm start, a replayed seed) is asked, and the campaign
    is killed before it is settled as a twin: the resume must not run it as the retry of an interrupted trial."""
    study = resume(campaign, 2)
    done = study.trials[1]
    study.enqueue_trial(done.params)
    killed_at(campaign, "ask:asked@1")
    check_resumed(resume(campaign), 1)


@pytest.mark.slow
def test_a_kill_while_a_new_study_is_set_up_queues_the_rest_on_resume(campaign: Path) -> None:
    data = yaml.safe_load(campaign.read_text())
    campaign.write_text(yaml.safe_dump({**data, "baseline": {"lustre.stripe_count": 24}}))
    killed_at(campaign, "open:default-queued")  # the default is queued, the baseline (the app's settings) not yet
    assert [t.state for t in study_of(campaign).trials] == [TrialState.WAITING]
    study = resume(campaign)
    check_resumed(study, 0)
    ran = ran_trials(study)
    assert [bool(t.user_attrs.get("is_default")) for t in ran].count(True) == 1
    assert [t.number for t in ran if t.user_attrs.get("baseline")] == [1]


def test_a_trial_whose_worker_stopped_beating_is_retried_once(tmp_path: Path) -> None:
    """Another host's worker went silent (Optuna's heartbeat): failed as interrupted with one retry, through the
    same steps as a local dead worker's trial (Optuna's own ``fail_stale_trials`` fails before it queues)."""
    db = tmp_path / "beat.db"
    study = optuna.create_study(study_name="beat", storage=make_storage(f"sqlite:///{db}"))
    trial = study.ask({"x": IntDistribution(0, 9)})
    trialrecord.write(trial, worker="elsewhere.example:4242", ran=True)
    study._storage.record_heartbeat(trial._trial_id)  # type: ignore[attr-defined]
    assert _study.recover_interrupted(study) == []  # beating: left to its worker
    with sqlite3.connect(db) as con:
        con.execute("UPDATE trial_heartbeats SET heartbeat = datetime('now', '-1 hour')")
    assert _study.recover_interrupted(study) == [trial.number]
    assert _study.recover_interrupted(study) == []
    t, *rest = study.get_trials(deepcopy=False)
    assert t.state == TrialState.FAIL and t.user_attrs["interrupted"] and not t.user_attrs["ran"]
    assert [(r.state, r.user_attrs["retry_of"], r.system_attrs["fixed_params"]) for r in rest] == [
        (TrialState.WAITING, t.number, t.params)]

"""kill -9 at random moments, resume each time: nothing lost, duplicated, left RUNNING or left running."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import uuid
from collections import Counter
from pathlib import Path

import optuna
import pytest
from optuna.trial import TrialState

from autotune.campaign import load_campaign, ran_trials
from autotune.campaign.file import data_dir_re
from autotune.testing import kill_9_repeatedly, kill_all, processes_with, script_campaign

# Sleeps a random moment, sometimes leaves a detached daemon behind, writes into its data directory.
APP = """
import os, random, subprocess, time
rng = random.Random(os.environ["AUTOTUNE_TRIAL"] + "/" + os.environ["AUTOTUNE_REPETITION"] + os.environ["LOOP_SALT"])
if rng.random() < 0.5:
    subprocess.Popen(["setsid", "sleep", "1000"], stdout=subprocess.DEVNULL)
data = os.environ["AUTOTUNE_DATA_DIR"]
os.makedirs(data, exist_ok=True)
for i in range(5):
    open(os.path.join(data, f"part{i}"), "wb").write(b"x" * 4096)
    time.sleep(rng.uniform(0.02, 0.2))
print('{"autotune_record": 1, "metrics": {"bandwidth_mib_s": %d}}' % (100 + int(os.environ["AUTOTUNE_TRIAL"])))
"""
KILLS = 4
TRIALS = 5
SEED = 20261127  # the kill moments (fresh seeds, many runs: python -m experiments.evaluation.kill_loop)


def _others(tmp_path: Path) -> dict[Path, str]:
    """Another campaign's live data next to ours (names that a glob over 'loop' would have caught) and outside."""
    files = {}
    for rel in ("target/loop-two-t0001-r0/blob", "target/loopx-t0002-r0/blob", "target/loop-t0001-r0-keep/blob",
                "outside/loop-t0001-r0/blob"):
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(rel)
        files[p] = rel
    return files


@pytest.mark.slow
def test_kill_9_loop(tmp_path: Path) -> None:
    seed = int(os.environ.get("AUTOTUNE_KILL_LOOP_SEED", str(SEED)))  # fixed: CI is reproducible
    rng = random.Random(seed)
    mark = uuid.uuid4().hex
    others = _others(tmp_path)
    path = script_campaign(tmp_path, APP, name="loop", budget={"trials": TRIALS, "run_timeout": "30s"},
                          objective={"repeats": 2}, app={"env": {"LOOP_MARK": mark, "LOOP_SALT": str(seed)}})
    cmd = [sys.executable, "-m", "autotune.cli", "tune", str(path)]
    c = load_campaign(path)
    try:
        killed = kill_9_repeatedly(cmd, f"LOOP_MARK={mark}", rng, KILLS, (0.0, 1.5))
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, f"seed {seed}: {out.stderr}"
        left = processes_with(f"LOOP_MARK={mark}")
    finally:
        kill_all(processes_with(f"LOOP_MARK={mark}"))
    assert not left, f"seed {seed}: processes left behind: {left}"
    study = optuna.load_study(study_name=c.study, storage=c.storage)
    trials = study.get_trials(deepcopy=False)
    states = Counter(t.state for t in trials)
    assert states[TrialState.RUNNING] == 0, f"seed {seed}: {states}"
    assert len(ran_trials(study)) == TRIALS, f"seed {seed}: {states}"
    interrupted = [t for t in trials if t.user_attrs.get("interrupted")]
    for t in interrupted:  # each interrupted configuration ran again exactly once
        retries = [r for r in trials if r.user_attrs.get("retry_of") == t.number]
        assert len(retries) == 1 and retries[0].params == t.params, f"seed {seed}: trial {t.number}"
        assert retries[0].state in (TrialState.COMPLETE, TrialState.FAIL) or retries[0].user_attrs.get("interrupted")
    for t in ran_trials(study):
        assert t.state == TrialState.COMPLETE and t.value == 100 + t.number, f"seed {seed}: trial {t.number}"
        assert len(t.user_attrs["repetitions"]) == 2
    assert all(p.read_text() == rel for p, rel in others.items()), f"seed {seed}: another campaign's data touched"
    mine = data_dir_re("loop")
    assert not [p.name for p in (tmp_path / "target").iterdir() if mine.fullmatch(p.name)], f"seed {seed}: stale data"
    runs = c.workdir / "runs" / "loop"  # this study's run records
    assert runs.is_dir() and not list(runs.glob("*/*/process.json"))
    print(f"kill loop: seed {seed}, {killed} kills, {len(interrupted)} interrupted trials, states {dict(states)}")

"""The random kill loop: ``kill -9`` a seeded campaign at random moments, resume it, and count what ran twice.

The robustness suite runs it with fixed seeds; ``python -m experiments.evaluation.kill_loop`` runs it with fresh
ones, many times (a stress test of resume: the deterministic per-step tests are
``tests/campaign/study/test_kill_steps.py``).
"""

from __future__ import annotations

import random
import subprocess
import sys
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import optuna
from optuna.trial import TrialState

from autotune import trialrecord
from autotune.campaign import load_campaign
from autotune.testing._misbehave import kill_9_repeatedly, kill_all, processes_with, script_campaign

# Each trial sleeps 0.05-0.25 s (by trial number) and reports 100 + its number.
APP = """
import os, random, time
time.sleep(random.Random(os.environ["AUTOTUNE_TRIAL"]).uniform(0.05, 0.25))
print('{"autotune_record": 1, "metrics": {"bandwidth_mib_s": %d}}' % (100 + int(os.environ["AUTOTUNE_TRIAL"])))
"""
SAMPLERS: dict[str, dict[str, Any]] = {"random": {"name": "random", "seed": 1}, "tpe": {"name": "tpe", "seed": 5}}


@dataclass
class KillLoopResult:
    """One kill loop: what the resumed study holds."""

    sampler: str
    seed: int
    kills: int = 0
    trials: int = 0  # trials in the study (asked, queued, failed, run)
    ran: int = 0  # trials the budget counts
    repeated: dict[tuple[Any, ...], int] = field(default_factory=dict)  # configurations completed more than once
    retries: dict[int, int] = field(default_factory=dict)  # interrupted trial -> its retries, when not exactly one
    error: str = ""  # the resume failed or warned, or fewer trials ran than the budget without a reason
    exhausted: bool = False  # the resume stopped early: the sampler proposed only measured configurations

    @property
    def ok(self) -> bool:
        return not self.repeated and not self.retries and not self.error

    def line(self) -> str:
        what = "ok" if self.ok else "; ".join(filter(None, [
            f"completed twice: {self.repeated}" if self.repeated else "",
            f"interrupted trials without exactly one retry: {self.retries}" if self.retries else "", self.error]))
        stop = " (exhausted: the sampler proposed only measured configurations)" if self.exhausted else ""
        return (f"{self.sampler} seed {self.seed}: {self.kills} kills, {self.trials} trials in the study, "
                f"{self.ran} ran{stop}: {what}")


def resume_kill_loop(tmp: Path, sampler: str, seed: int, kills: int = 4, trials: int = 12,
                     pause: tuple[float, float] = (0.3, 2.0)) -> KillLoopResult:
    """Start ``autotune tune`` and kill -9 it ``kills`` times at random moments (``seed``), a few trials in each
    time, then resume it to the end and read the study."""
    result = KillLoopResult(sampler, seed)
    mark = uuid.uuid4().hex
    path = script_campaign(tmp, APP, name="again", sampler=SAMPLERS[sampler],
                          budget={"trials": trials, "run_timeout": "30s"}, app={"env": {"AGAIN_MARK": mark}})
    cmd = [sys.executable, "-m", "autotune.cli", "tune", str(path)]
    c = load_campaign(path)
    try:
        result.kills = kill_9_repeatedly(cmd, f"AGAIN_MARK={mark}", random.Random(seed), kills, pause)
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        if out.returncode != 0 or "Warning" in out.stderr:
            result.error = f"the resume exited {out.returncode}: {out.stderr.strip()[-2000:]}"
        result.exhausted = "were all configurations already measured" in out.stdout  # a documented early stop
    finally:
        kill_all(processes_with(f"AGAIN_MARK={mark}"))
    study = optuna.load_study(study_name=c.study, storage=c.storage)
    every = study.get_trials(deepcopy=False)
    ran = trialrecord.ran_trials(every)
    result.trials, result.ran = len(every), len(ran)
    if (result.ran > trials or (result.ran < trials and not result.exhausted)) and not result.error:
        result.error = f"{result.ran} trials ran, the budget is {trials}"
    done = Counter(tuple(sorted(t.params.items())) for t in ran
                   if t.state == TrialState.COMPLETE and not trialrecord.read(t).is_default)
    result.repeated = {k: n for k, n in done.items() if n > 1}
    retried = Counter(r.retry_of for t in every if (r := trialrecord.read(t)).retry_of is not None)
    result.retries = {t.number: retried[t.number] for t in every
                      if trialrecord.read(t).interrupted and retried[t.number] != 1}
    return result

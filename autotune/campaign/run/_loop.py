"""The campaign loop: ask Optuna, check the rules, run N repetitions, tell, track; resumable at any point."""

from __future__ import annotations

import signal
import time
import warnings
from dataclasses import dataclass
from types import FrameType
from typing import Any

import optuna
from optuna.trial import TrialState

from autotune import trialrecord
from autotune.campaign.confirm import confirm_campaign, confirmation_reserve
from autotune.campaign.file import Campaign
from autotune.campaign.run._preflight import cancel_active, preflight
from autotune.campaign.run._remeasure import remeasure_top
from autotune.campaign.run._report import summary, summary_text
from autotune.campaign.run._steps import LoopSteps
from autotune.campaign.study import (
    backfill_tracker,
    best_trial,
    completed_configs,
    feasible_count,
    heartbeat,
    ran_trials,
    stop_cleanly,
    value_of,
)
from autotune.campaign.trial import Runtime, TrialOutcome, release, reserve, run_trial
from autotune.errors import AutotuneError
from autotune.space import Config
from autotune.tracking import CampaignInfo

MAX_INFEASIBLE_IN_A_ROW = 1000
MAX_DUPLICATES_IN_A_ROW = 100  # repeated proposals with no untried configuration queued in their place (a guard)
optuna.logging.set_verbosity(optuna.logging.WARNING)
# We record heartbeats ourselves around each trial (campaign._study.heartbeat), with ask/tell.
warnings.filterwarnings("ignore", message="Heartbeat of storage is supposed to be used with Study.optimize")
# A queued configuration outside a narrowed space is dropped by _propose (one notice), not warned about.
warnings.filterwarnings("ignore", message="Fixed parameter .* is out of range", category=UserWarning)
# CMA-ES does not model constraints; the loop tells a rule-breaking proposal as infeasible and never runs it.
warnings.filterwarnings("ignore", message="Constraints have been set, but CmaEsSampler", category=UserWarning)


@dataclass
class LoopResult:
    study: optuna.Study
    runtime: Runtime
    trials_run_now: int
    stopped_by: str  # "trials" | "wall_time" | "interrupted" | "exhausted" | "default_failed"
    summary: dict[str, Any]


class _Interrupted(Exception):
    """SIGTERM arrived: stop after failing (and re-enqueuing) the running trial."""


def _on_signal(signum: int, frame: FrameType | None) -> None:
    raise _Interrupted(signal.Signals(signum).name)


class CampaignLoop(LoopSteps):
    """Runs (or resumes) one campaign until its trial or wall-time budget is spent."""

    def run(self) -> LoopResult:
        note = preflight(self.rt)  # sbatch --test-only: a job the scheduler can never start stops the campaign here
        if note:
            self.say(f"preflight: {note}")
        study = self.open()
        c = self.c
        reserve(self.rt.campaign, self.say)  # target.bb.persistent: the set-up job (once)
        self.tracker.start(CampaignInfo(
            name=c.name, study=c.study, storage=c.storage, app=c.app.name, system=c.system.name, filesystem=c.fs.name,
            launcher=str(c.launcher["name"]), space=c.space.name, objective=f"{c.objective.direction} {c.objective.metric}",
            command_line=self.command_line, campaign_text=c.text))
        backfill_tracker(self.tracker, self.rt, study)  # trials a failed write (full disk) left out of MLflow
        old = {s: signal.signal(s, _on_signal) for s in (signal.SIGTERM,)}
        self._started = time.monotonic()
        try:
            with stop_cleanly(c, study, self.rt.worker, self.tracker):  # a full disk: nothing left RUNNING
                n_now, stopped = self._loop(study)
            # a sampler with nothing new to propose has finished too (a grid is a sweep: nothing to confirm)
            finished = stopped in ("trials", "wall_time") or (stopped == "exhausted" and c.sampler.get("name") != "grid")
            if finished and c.objective.cost is not None:  # a trade-off: no single winner to confirm
                self.say("confirmation: skipped (two objectives: the recommendation is the cost rule's pick on "
                         "the Pareto front, see docs/guide/cost.md)")
            elif finished and c.objective.confirm and c.sampler.get("name") != "grid":  # a grid is a sweep
                left = None if c.budget.wall_time is None else c.budget.wall_time - (time.monotonic() - self._started)
                confirm_campaign(self.rt, study, c.objective.confirm, self.say, left)  # one worker of a shared campaign
            elif finished and c.objective.adaptive and c.objective.remeasure > 1:
                self._remeasure(study)
        finally:
            for s, h in old.items():
                signal.signal(s, h)
            cancel_active(self.rt, self.say)  # stopped on purpose (or done): nothing left queued
        release(self.rt.campaign, self.say, stopped)  # target.bb.persistent: the tear-down job unless kept
        summ = summary(self.rt, study)
        self.tracker.finish(summ)
        return LoopResult(study, self.rt, n_now, stopped, summ)

    def _remeasure(self, study: optuna.Study) -> None:
        remeasure_top(self.rt, study, self.say)

    def _budget_left(self, study: optuna.Study, started: float, per_trial: list[float]) -> str | None:
        b = self.c.budget
        if isinstance(study.sampler, optuna.samplers.GridSampler) and study.sampler.is_exhausted(study):
            return "exhausted"
        if b.trials is not None:
            # trials other workers are running count too, so N workers on one storage stop at the total
            running = len(study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)))
            if len(ran_trials(study)) + running >= b.trials:
                return "trials"
        if b.wall_time is not None:
            elapsed = time.monotonic() - started
            expected = sum(per_trial) / len(per_trial) if per_trial else 0.0
            # the confirmation counts against the wall time too: leave its first look's runs
            kept = confirmation_reserve(self.c, study, expected / max(self.c.objective.repeats, 1)) if per_trial else 0.0
            if elapsed + expected + kept > b.wall_time:
                return "wall_time"
        return None

    # -- how trials run: one at a time here; ``ParallelLoop`` (execute/) overrides these two ----------------
    parallel = 1  # trials in flight at once

    def _submit(self, study: optuna.Study, trial: optuna.Trial, config: Config, incumbent: float | None) -> Any:
        """Start ``trial`` (here: queue it; it runs in ``_wait``); returns its handle."""
        self._queued = (study, trial, config, incumbent)
        return trial.number

    def _wait(self, handles: list[Any]) -> list[tuple[Any, TrialOutcome]]:
        """Block until at least one submitted trial finished; ``[(handle, outcome)]``."""
        study, trial, config, incumbent = self._queued
        rec = trialrecord.read(trial)
        with heartbeat(study, trial):
            outcome = run_trial(self.rt, trial.number, config, rec.is_default, self.c.objective.repeats,
                                retry_of=rec.retry_of, incumbent=incumbent)
        return [(trial.number, outcome)]

    def _stop(self, study: optuna.Study, started: float, per_trial: list[float]) -> str | None:
        """Why no new trial starts: the default failed, nothing new is proposed, or a budget is spent (None: go on)."""
        if self.failure is not None:
            return "default_failed"
        if self._nothing_untried or self._duplicates >= MAX_DUPLICATES_IN_A_ROW or self._all_measured(study):
            return "exhausted"
        return self._budget_left(study, started, per_trial)

    def _all_measured(self, study: optuna.Study) -> bool:
        """True when a small space's every feasible configuration has completed, the default's included."""
        if self._size is None:
            self._size = feasible_count(self.rt.space) or -1
        return self._size > 0 and completed_configs(study) >= self._size

    def _loop(self, study: optuna.Study) -> tuple[int, str]:
        """Keep up to ``parallel`` trials in flight until the budget is spent; tell them as they finish."""
        started = time.monotonic()
        per_trial: list[float] = []
        n_now, infeasible_row = 0, 0
        pending: dict[Any, optuna.Trial] = {}
        bar = self._bar(study, self.c.budget.trials)
        try:
            while True:
                stop = self._stop(study, started, per_trial)  # running trials (ours too) count
                while stop is None and len(pending) < self.parallel:
                    proposed = self._propose(study)
                    if proposed is None:
                        if self._nothing_untried:
                            self.say("stopping: every configuration the search can reach was tried (a proposal "
                                     "repeated a measured one and none is left untried)")
                            stop = "exhausted"
                            continue
                        if self._duplicates >= MAX_DUPLICATES_IN_A_ROW:
                            self.say(f"stopping: the last {self._duplicates} proposals were all configurations "
                                     "already measured (nothing new for this sampler)")
                            stop = "exhausted"
                            continue
                        infeasible_row += 1
                        if infeasible_row >= MAX_INFEASIBLE_IN_A_ROW:
                            raise AutotuneError(f"{infeasible_row} proposals in a row broke the rules: the space leaves "
                                                "almost no room; widen it or relax the rules")
                        continue
                    infeasible_row = 0
                    trial, config = proposed
                    best = best_trial(study) if self.c.objective.adaptive else None
                    pending[self._submit(study, trial, config, value_of(best) if best is not None else None)] = trial
                    stop = self._stop(study, started, per_trial)
                if not pending:
                    return n_now, stop or "trials"
                for handle, outcome in self._wait(list(pending)):
                    self._record(study, pending.pop(handle), outcome, bar)
                    n_now += 1
                    per_trial.append(outcome.duration)
                    self._default_failed(study, outcome)  # sets self.failure: no new trials, running ones finish
        except (KeyboardInterrupt, _Interrupted):
            self._mark_interrupted(study, list(pending.values()))
            return n_now, "interrupted"
        finally:
            if bar is not None:
                bar.close()



def run_campaign(c: Campaign, **kw: Any) -> LoopResult:
    """Run or resume ``c`` (see ``CampaignLoop`` for the keyword arguments)."""
    return CampaignLoop(c, **kw).run()


__all__ = ["CampaignLoop", "LoopResult", "run_campaign", "summary_text"]

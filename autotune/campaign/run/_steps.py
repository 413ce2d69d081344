"""The campaign loop's steps on the study: open it (set up, resume, clean up what an interrupted run left), ask
for a proposal and check it against the rules, tell and show a finished trial, mark interrupted trials.

``CampaignLoop`` (``_loop``) builds on these and decides when trials start and stop."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Mapping
from typing import Any, TextIO

import optuna
from optuna.trial import FrozenTrial, TrialState
from tqdm import tqdm

from autotune import _killpoint, trialrecord
from autotune._storelock import store_lock
from autotune.campaign.confirm import in_use
from autotune.campaign.file import Campaign, clean_stale_data
from autotune.campaign.run._show import trial_line, trial_record
from autotune.campaign.run._tell import cost_parts, told_values
from autotune.campaign.study import (
    DUPLICATE,
    best_trial,
    check_choices,
    check_identity,
    data_in_use,
    drop_queued_outside,
    interrupt,
    nearest_untried,
    open_study,
    ran_trials,
    record_space,
    recover_interrupted,
    settle_unneeded,
    worst_values,
)
from autotune.campaign.trial import Runtime, TrialOutcome, default_failure
from autotune.launch import kill_leftovers
from autotune.optimize import initial_configs, sampler_for
from autotune.space import Config, rules_of_thumb
from autotune.tracking import BaseTracker, NullTracker, SafeTracker


def _entry(params: Mapping[str, Any], is_default: bool = False, baseline: bool = False,
           initial: bool = False, rule_of_thumb: str | None = None) -> tuple[Any, ...]:
    """A queued trial's values and role."""
    return tuple(sorted(params.items())), is_default, baseline, initial, rule_of_thumb or None


class LoopSteps:
    """The state of one campaign's run and its steps on the study (``CampaignLoop`` runs them)."""

    def __init__(self, campaign: Campaign, *, tracker: BaseTracker | None = None, runtime: Runtime | None = None,
                 out: TextIO | None = None, progress: bool = True, command_line: str = "",
                 on_trial: Callable[[TrialOutcome], None] | None = None) -> None:
        self.c = campaign
        self.rt = runtime or Runtime.build(campaign)
        self.tracker = SafeTracker(tracker or NullTracker())
        self.out = out or sys.stdout
        self.progress = progress
        self.command_line = command_line
        self.on_trial = on_trial
        self._queued: tuple[optuna.Study, optuna.Trial, Config, float | None]  # the serial _submit's trial
        self.failure: str | None = None  # why the campaign stopped early (the default failed)
        self._duplicates = 0  # proposals in a row of configurations already measured (and nothing untried to run)
        self._nothing_untried = False  # a repeated proposal found every reachable configuration tried
        self._started = 0.0  # when this run of the campaign started (time.monotonic; the wall-time budget)
        self._size: int | None = None  # feasible configurations of a small space (-1: too many to count)

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def open(self) -> optuna.Study:
        rt = self.rt
        rt.check_target()
        fallback = sampler_for(self.c.sampler, 2 if self.c.objective.cost is not None else 1)[1]
        for notice in [*rt.space.notices, *([fallback] if fallback else []), *filter(None, [self.c.data_note])]:
            self.say(f"notice: {notice}")
        if self.c.storage.startswith("sqlite:///"):
            self.c.workdir.mkdir(parents=True, exist_ok=True)
        with store_lock(self.c.storage, "study-setup"):  # workers starting at once: one sets the study up
            study = self._set_up_study()
        self._clean_stale_data(study)
        return study

    def _set_up_study(self) -> optuna.Study:
        rt = self.rt
        study = open_study(self.c, rt.space)
        info = rt.info()
        check_identity(study, info)  # another target, app or metric: refused, never mixed into this study
        check_choices(study, rt.space.distributions())  # a categorical's choices are the study's for good
        trialrecord.write_study(study, **info)
        record_space(study, rt.space.distributions())
        interrupted = recover_interrupted(study)
        if interrupted:
            self.say(f"resume: trial(s) {', '.join(map(str, interrupted))} were interrupted; their configurations run again")
        for line in drop_queued_outside(study, rt.space.distributions()):
            self.say(f"resume: queued {line}: outside the current space, dropped (never run)")
        trials = study.get_trials(deepcopy=False)
        # nothing asked yet (queued trials, a warm start's history): a new study, or one whose set-up was stopped
        if all(t.state == TrialState.WAITING or trialrecord.read(t).warm_start_of is not None for t in trials):
            self._queue_start(study, trials)
        return study

    def _queue_start(self, study: optuna.Study, queued: list[FrozenTrial]) -> None:
        """Queue the default, the baseline (the app's own settings) and the warm or model-informed start; an entry
        already queued with the same values and role (a set-up killed half-way, done again) is not queued twice."""
        rt = self.rt
        have = {_entry(t.system_attrs.get("fixed_params") or {}, r.is_default, r.baseline, r.initial, r.rule_of_thumb)
                for t in queued for r in (trialrecord.read(t),)}

        def put(config: Config, **role: Any) -> None:
            params = rt.space.to_optuna(config)
            if _entry(params, **role) not in have:
                study.enqueue_trial(params, user_attrs=trialrecord.attrs(**role))

        put(rt.space.default_config(), is_default=True)
        _killpoint.reached("open:default-queued")
        if rt.baseline is not None and rt.baseline != rt.space.default_config():
            put(rt.baseline, baseline=True)
        thumbs, notes = rules_of_thumb(rt.space) if self.c.sampler.get("rules_of_thumb", True) else ([], [])
        for note in notes:  # the rules: what a user would try first, each with its source
            self.say(f"notice: {note}")
        for b in thumbs:
            if b.config != rt.baseline:  # the app's own settings already run
                put(b.config, rule_of_thumb=b.name)
        anchors = [b.config for b in thumbs] + ([rt.baseline] if rt.baseline is not None else [])
        for config in initial_configs(self.c, rt.space, study, self.say, anchors, rt.starts):  # warm start, model's start
            if config not in [b.config for b in thumbs]:
                put(config, initial=True)

    def _clean_stale_data(self, study: optuna.Study) -> None:
        """Kill what an interrupted run left running, then remove this study's own stale data directories
        (not those a live worker's trial, an adoptable job or another worker's confirmation may still write:
        ``data_in_use``, ``confirm._claim.in_use``)."""
        killed = kill_leftovers(self.rt.runs_root)
        if killed:
            self.say(f"resume: killed {killed} process(es) left running by an interrupted run")
        clean_stale_data(self.c.data_root, self.c.study, lambda: in_use(study, self.rt.worker, data_in_use(study)))

    @staticmethod
    def _default_taken(study: optuna.Study, number: int) -> bool:
        """True when an earlier trial already is (or runs) the default configuration."""
        return any(t.number < number and r.is_default and not r.duplicate_default and not r.interrupted
                   and t.state != TrialState.WAITING
                   for t in study.get_trials(deepcopy=False) for r in (trialrecord.read(t),))

    def _default_failed(self, study: optuna.Study, outcome: TrialOutcome) -> bool:
        """Fail fast: the default failed in every repetition and nothing has succeeded yet."""
        if outcome.ok or not outcome.is_default or best_trial(study) is not None:
            return False
        self.failure = default_failure(outcome)
        self.say("\n" + self.failure)
        return True

    def _propose(self, study: optuna.Study) -> tuple[optuna.Trial, Config] | None:
        """Ask for a configuration; one that breaks a rule, lies outside the space (queued before it was narrowed),
        was already measured, or is a duplicate default is told and gives None (never run, not counted)."""
        rt = self.rt
        distributions = rt.space.distributions()
        trial = study.ask(fixed_distributions=distributions)
        _killpoint.reached("ask:asked")
        unneeded = settle_unneeded(study, trial, distributions, rt.space)
        if unneeded is not None:
            if unneeded != DUPLICATE:
                self.say(f"resume: {unneeded}")
            elif not self._replace(study, trial):
                self._duplicates += 1
            return None
        self._duplicates = 0
        config = rt.space.from_optuna(trial.params)
        violations = rt.space.violations(config)
        # one constraint for all rules (the names of broken ones go to a user attribute): a GP sampler
        # fits one model per constraint, and only feasibility matters to the search
        trial.set_constraint("rules", max(violations.values(), default=0.0))
        broken = sorted(n for n, v in violations.items() if v > 0)
        if broken:
            trialrecord.write(trial, infeasible=broken)
            study.tell(trial, worst_values(study))
            shown = ", ".join(f"{k}={v}" for k, v in sorted(config.items()) if k not in rt.space.fixed)
            self.say(f"trial {trial.number:3d}: not run: breaks the rule(s) {', '.join(broken)} ({shown})")
            return None
        if trialrecord.read(trial).is_default and self._default_taken(study, trial.number):
            trialrecord.write(trial, duplicate_default=True)  # another worker enqueued it at the same instant
            study.tell(trial, state=TrialState.FAIL)
            return None
        trialrecord.write(trial, worker=rt.worker, ran=True)
        _killpoint.reached("ask:claimed")
        return trial, config

    def _replace(self, study: optuna.Study, trial: optuna.Trial) -> bool:
        """Queue the untried configuration nearest to a repeated proposal in its place (``_untried``); False when
        every configuration the search can reach was tried."""
        space = self.rt.space
        config = nearest_untried(study, space, space.from_optuna(trial.params))
        if config is None:
            self._nothing_untried = True
            return False
        study.enqueue_trial(space.to_optuna(config), user_attrs=trialrecord.attrs(replaces=trial.number))
        return True

    def _record(self, study: optuna.Study, trial: optuna.Trial, outcome: TrialOutcome, bar: Any) -> None:
        """Store a finished trial's outcome, tell Optuna, track it and show it."""
        _killpoint.reached("run:finished")
        trialrecord.write(trial, **outcome.record())
        cost = None
        if outcome.ok:
            parts = cost_parts(self.c, outcome, self.rt.space.default_config().get("bb.nodes"))
            if self.c.objective.cost is not None and parts is not None:
                cost = parts.as_dict(self.c.objective.cost.exchange_rate)
                trialrecord.write(trial, cost=cost)
            _killpoint.reached("record:written")
            study.tell(trial, told_values(self.c, outcome, parts))
        else:
            trialrecord.write(trial, error=outcome.error)
            _killpoint.reached("record:written")
            study.tell(trial, state=TrialState.FAIL)
        _killpoint.reached("record:told")
        self.tracker.log_trial(trial_record(self.c, outcome, cost))
        self._show(bar, study, outcome)
        if self.on_trial:
            self.on_trial(outcome)

    def _mark_interrupted(self, study: optuna.Study, trials: list[optuna.Trial]) -> None:
        """Ctrl-C/SIGTERM: the running trials fail, do not count, and their configurations run again."""
        for trial in trials:
            interrupt(study, study.get_trials(deepcopy=False)[trial.number], "interrupted by the user; runs again on resume")
        numbers = ", ".join(str(t.number) for t in trials)
        self.say(f"\ninterrupted during trial {numbers}: run the same command to resume")

    def _bar(self, study: optuna.Study, total: int | None) -> Any:
        if not self.progress:
            return None
        return tqdm(total=total, initial=min(len(ran_trials(study)), total or math.inf), unit="trial",
                    disable=not sys.stderr.isatty(), file=sys.stderr, leave=False, dynamic_ncols=True)

    def _show(self, bar: Any, study: optuna.Study, o: TrialOutcome) -> None:
        line, postfix = trial_line(self.c, study, o)
        if bar is not None:
            bar.update(1)
            if postfix is not None:
                bar.set_postfix_str(postfix)
            bar.write(line, file=self.out)
        else:
            self.say(line)

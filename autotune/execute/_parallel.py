"""A campaign loop that keeps several trials in flight (ask ahead, tell as they finish)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import optuna

from autotune.campaign import CampaignLoop, TrialOutcome
from autotune.campaign._loop import MAX_INFEASIBLE_IN_A_ROW, _Interrupted
from autotune.campaign._study import best_trial, ran_trials
from autotune.errors import AutotuneError

# submit(number, config, is_default, retry_of, incumbent) -> handle; wait(handles) -> finished [(handle, outcome)]
Submit = Callable[[int, dict[str, Any], bool, int | None, float | None], Any]
Wait = Callable[[Sequence[Any]], list[tuple[Any, TrialOutcome]]]


class ParallelLoop(CampaignLoop):
    """``CampaignLoop`` with up to ``parallel`` trials running at once through ``submit``/``wait``.

    Rules, constraints, budget, tracking and the summary are the serial loop's; only the order in
    which trials are told differs (as they finish). Optuna samplers see running trials (TPE's
    constant liar), so proposals made while others run stay diverse.
    """

    def __init__(self, campaign: Any, *, submit: Submit, wait: Wait, parallel: int, **kw: Any) -> None:
        super().__init__(campaign, **kw)
        self.submit, self.wait, self.parallel = submit, wait, max(1, parallel)

    def _stop(self, study: optuna.Study, started: float, per_trial: list[float], in_flight: int) -> str | None:
        b = self.c.budget
        if self.failure is not None:  # the default failed in every repetition: let running trials finish
            return "default_failed"
        if b.trials is not None and len(ran_trials(study)) + in_flight >= b.trials:
            return "trials"
        return self._budget_left(study, started, per_trial)

    def _loop(self, study: optuna.Study) -> tuple[int, str]:
        started = time.monotonic()
        per_trial: list[float] = []
        n_now, infeasible_row = 0, 0
        pending: dict[Any, optuna.Trial] = {}
        stop: str | None = None
        try:
            while True:
                stop = self._stop(study, started, per_trial, len(pending))
                while stop is None and len(pending) < self.parallel:
                    asked = self._propose(study)
                    if asked is None:
                        infeasible_row += 1
                        if infeasible_row >= MAX_INFEASIBLE_IN_A_ROW:
                            raise AutotuneError(f"{infeasible_row} proposals in a row broke the rules")
                        continue
                    infeasible_row = 0
                    trial, config = asked
                    retry_of = trial.user_attrs.get("retry_of")
                    best = best_trial(study)
                    handle = self.submit(trial.number, config, bool(trial.user_attrs.get("is_default", False)),
                                         int(retry_of) if retry_of is not None else None,
                                         best.value if best is not None else None)
                    pending[handle] = trial
                    stop = self._stop(study, started, per_trial, len(pending))
                if not pending:
                    return n_now, stop or "trials"
                for handle, outcome in self.wait(list(pending)):
                    self._record(study, pending.pop(handle), outcome, None)
                    n_now += 1
                    per_trial.append(outcome.duration)
                    self._default_failed(study, outcome)  # sets self.failure: no new trials
        except (KeyboardInterrupt, _Interrupted):
            self._mark_interrupted(study, list(pending.values()))
            return n_now, "interrupted"

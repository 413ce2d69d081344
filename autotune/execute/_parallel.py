"""The campaign loop with several trials in flight: ``CampaignLoop`` with other ``_submit``/``_wait``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import optuna

from autotune import trialrecord
from autotune.campaign import CampaignLoop, TrialOutcome
from autotune.space import Config

# submit(number, config, is_default, retry_of, incumbent) -> handle; wait(handles) -> finished [(handle, outcome)]
Submit = Callable[[int, dict[str, Any], bool, int | None, float | None], Any]
Wait = Callable[[Sequence[Any]], list[tuple[Any, TrialOutcome]]]


class ParallelLoop(CampaignLoop):
    """``CampaignLoop`` with up to ``parallel`` trials running at once through ``submit``/``wait``.

    Everything else (rules, constraints, budget, incumbent, tracking, interruption, the summary) is the one
    loop of ``CampaignLoop``; with ``parallel=1`` it is the serial loop. Optuna samplers see running trials
    (TPE's constant liar), so proposals made while others run stay diverse.
    """

    def __init__(self, campaign: Any, *, submit: Submit, wait: Wait, parallel: int, **kw: Any) -> None:
        super().__init__(campaign, **kw)
        self.submit, self.wait, self.parallel = submit, wait, max(1, parallel)

    def _submit(self, study: optuna.Study, trial: optuna.Trial, config: Config, incumbent: float | None) -> Any:
        rec = trialrecord.read(trial)
        return self.submit(trial.number, dict(config), rec.is_default, rec.retry_of, incumbent)

    def _wait(self, handles: list[Any]) -> list[tuple[Any, TrialOutcome]]:
        return self.wait(handles)

"""Adaptive repetitions' last step: measure the top few trials again before recommending one."""

from __future__ import annotations

from collections.abc import Callable

import optuna
from optuna.trial import TrialState

from autotune import trialrecord
from autotune.campaign.file import REMEASURE_BASE
from autotune.campaign.study import in_space, value_of
from autotune.campaign.trial import Runtime, run_trial
from autotune.optimize import Candidate, remeasure


def remeasure_top(rt: Runtime, study: optuna.Study, say: Callable[[str], None]) -> None:
    """Measure the top few again (``objective.remeasure``); the pick is kept as study user attr ``recommended``."""
    c = rt.campaign
    done = [t for t in in_space(study, study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)))
            if trialrecord.read(t).ran and value_of(t) is not None]
    by_number = {t.number: t for t in done}
    cands = [Candidate(t.number, [v for v in trialrecord.read(t).repetitions if v is not None]
                       or [float(value_of(t) or 0.0)]) for t in done]
    extra: dict[int, list[float | None]] = {}

    def measure(number: int, n: int) -> list[float]:
        t = by_number[number]
        o = run_trial(rt, REMEASURE_BASE + number, rt.space.from_optuna(t.params), trialrecord.read(t).is_default, n)
        extra[number] = list(o.repetitions)
        return [v for v in o.repetitions if v is not None]

    pick = remeasure(cands, measure, top=c.objective.remeasure, repeats=2, how=c.objective.aggregate,
                     maximize=c.objective.maximize)
    if pick is not None:
        trialrecord.write_study(study, recommended={"trial": pick.key, "values": pick.values,
                                                              "remeasured": {str(k): v for k, v in extra.items()}})
        if extra:
            say(f"re-measured trials {', '.join(map(str, sorted(extra)))}: recommend trial {pick.key}")

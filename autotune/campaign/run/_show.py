"""What the loop says about a finished trial: the MLflow record, the progress line."""

from __future__ import annotations

import json
from typing import Any

import optuna

from autotune import trialrecord
from autotune.campaign.file import Campaign
from autotune.campaign.study import best_trial, value_of
from autotune.campaign.trial import TrialOutcome
from autotune.measure import verdict_brief
from autotune.tracking import TrackedTrial


def _json(obj: Any) -> str:
    return json.dumps(obj, indent=2, sort_keys=True, default=str) + "\n"


def trial_record(c: Campaign, o: TrialOutcome, cost: dict[str, float] | None = None) -> TrackedTrial:
    """The MLflow record of a finished trial (with ``objective.cost``: its cost figures as metrics too)."""
    arts = {"command.txt": o.command + "\n", "hints.json": _json(o.hints)}
    if o.hints_in_effect:
        arts["hints_in_effect.json"] = _json(o.hints_in_effect)
    if o.stderr_tail:
        arts["stderr_tail.txt"] = o.stderr_tail
    arts["runs.json"] = _json(o.run_info)
    extra = {k: float(cost[k]) for k in ("cost", "node_hours", "bb_node_hours", "seconds")} if cost else {}
    return TrackedTrial(
        number=o.number, state="COMPLETE" if o.ok else "FAIL", config=o.config, value=o.value,
        repetitions=o.repetitions, metric=c.objective.metric, is_default=o.is_default, hints=o.hints,
        hints_in_effect=o.hints_in_effect, hints_not_in_effect=o.hints_not_in_effect, artifacts=arts,
        error=o.error, duration=o.duration, extra_metrics=extra)


def trial_line(c: Campaign, study: optuna.Study, o: TrialOutcome) -> tuple[str, str | None]:
    """The progress line of a finished trial, and the progress bar's postfix (None: no best yet)."""
    best = best_trial(study)
    reps = " ".join(f"{v:.4g}" if v is not None else "fail" for v in o.repetitions)
    tag = " (default)" if o.is_default else ""
    if not o.is_default:  # a rule of thumb says which: one trial read, not the study's
        tid = study._storage.get_trial_id_from_study_id_trial_number(study._study_id, o.number)
        rule = trialrecord.read(study._storage.get_trial(tid)).rule_of_thumb
        tag = f" (rule of thumb {rule})" if rule else ""
    status = f"{c.objective.aggregate}={o.value:.4g}" if o.ok else f"FAILED: {o.error}"
    line = f"trial {o.number:3d}{tag}: {status} [{reps}] ({o.duration:.1f}s)"
    if o.ok and c.objective.cost is not None:
        mine = trialrecord.read(study.get_trials(deepcopy=False)[o.number]).cost or {}
        if "cost" in mine:
            line += f" cost {mine['cost']:.4g} node-hours"
    problems = verdict_brief(o.verification)
    if problems:  # each setting with its verdict and the evidence, here, not behind another command
        line += f"  hints: {problems}"
    elif o.hints_not_in_effect:
        line += "  hints not in effect: " + "; ".join(f"{k}={v.get('requested')} -> {v.get('in_effect')} ({v.get('why')})"
                                                      for k, v in sorted(o.hints_not_in_effect.items()))
    if best is None:
        return line, None
    word = "recommended" if c.objective.cost is not None else "best"
    line += f"  | {word} {value_of(best):.4g} (trial {best.number})"
    return line, f"{word} {value_of(best):.4g}"

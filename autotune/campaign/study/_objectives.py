"""One or two objectives: the campaign's metric, and with ``objective.cost`` the cost of a run.

A study with ``objective.cost`` is a multi-objective Optuna study (``directions=[metric's, "minimize"]``):
``FrozenTrial.value`` and ``Study.direction`` raise there, so everything that reads a trial's figure
goes through ``value_of`` (objective 0, the metric) and ``maximizes``. Where one trial is needed (the
summary, export, status, MLflow), it is the trial ``recommended`` under the cost rule.
"""

from __future__ import annotations

import optuna
from optuna.trial import FrozenTrial, TrialState

from autotune import trialrecord
from autotune.campaign.file import Campaign, CostObjective, CostParts, Point, pareto, recommend
from autotune.campaign.study._resume import in_space


def directions(c: Campaign) -> list[str]:
    return [c.objective.direction, "minimize"] if c.objective.cost is not None else [c.objective.direction]


def is_multi(study: optuna.Study) -> bool:
    return len(study.directions) > 1


def maximizes(study: optuna.Study) -> bool:
    """True when the metric (objective 0) is maximised."""
    return study.directions[0] == optuna.study.StudyDirection.MAXIMIZE


def value_of(t: FrozenTrial) -> float | None:
    """The trial's metric value (objective 0), or None (not complete)."""
    return float(t.values[0]) if t.values else None


def worst_values(study: optuna.Study) -> float | list[float]:
    """Told for a configuration that breaks a rule (never run): the worst value seen per objective."""
    done = [t.values for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
            if t.values and trialrecord.read(t).ran]
    out = []
    for i, d in enumerate(study.directions):
        vals = [v[i] for v in done]
        if d == optuna.study.StudyDirection.MAXIMIZE:
            out.append(min(vals) if vals else 0.0)
        else:
            out.append(max(vals) if vals else 1e30)
    return out if len(out) > 1 else out[0]


def cost_rule(study: optuna.Study, rule: CostObjective | None = None) -> CostObjective | None:
    """The recommendation rule: ``rule`` if given, else the one the campaign stored on the study."""
    if rule is not None:
        return rule
    stored = trialrecord.read_study(study).cost
    return CostObjective.from_rule(stored) if stored is not None else None


def points(study: optuna.Study) -> list[Point]:
    """The completed trials that were run, with their cost parts."""
    out = []
    for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
        rec = trialrecord.read(t)
        if rec.ran and t.values and rec.cost is not None:
            out.append(Point(t.number, float(t.values[0]), CostParts.from_attr(rec.cost)))
    return out


def front(study: optuna.Study, rule: CostObjective) -> list[Point]:
    return pareto(points(study), rule.exchange_rate, maximizes(study))


def recommended(study: optuna.Study, rule: CostObjective | None = None) -> FrozenTrial | None:
    """The trial recommended under the cost rule (the study's own unless ``rule`` is given), among the trials
    inside the space the study last ran with."""
    r = cost_rule(study, rule)
    if r is None:
        return None
    eligible = {t.number for t in in_space(study, study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)))}
    pick = recommend([p for p in points(study) if p.number in eligible], r, maximizes(study))
    return study.get_trials(deepcopy=False)[pick.number] if pick is not None else None

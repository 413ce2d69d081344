"""One or two objectives: the campaign's metric, and with ``objective.cost`` the cost of a run.

A study with ``objective.cost`` is a multi-objective Optuna study (``directions=[metric's, "minimize"]``):
``FrozenTrial.value`` and ``Study.direction`` raise there, so everything that reads a trial's figure
goes through ``value_of`` (objective 0, the metric) and ``maximizes``. Where one trial is needed (the
summary, export, status, MLflow), it is the trial ``recommended`` under the cost rule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import optuna
from optuna.trial import FrozenTrial, TrialState

from autotune import trialrecord
from autotune.campaign.file._cost import CostObjective, CostParts, Point, pareto, recommend
from autotune.campaign.study._resume import in_space
from autotune.measure import aggregate
from autotune.tiers import DATAWARP

if TYPE_CHECKING:
    from autotune.campaign.file._config import Campaign
    from autotune.campaign.trial._trial import TrialOutcome



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


def cost_parts(c: Campaign, outcome: TrialOutcome, bb_default: Any = None) -> CostParts | None:
    """The I/O time of one run of ``outcome``'s configuration and the nodes it holds (None: it failed)."""
    if outcome.value is None:
        return None
    if c.objective.kind == "time":
        seconds = float(outcome.value)
    else:  # a bandwidth or score: the run's time, aggregated as the metric is (objective.aggregate; best: the fastest)
        secs = [float(m["seconds"]) if "seconds" in m else float(info.get("wall_s", 0.0))
                for v, m, info in zip(outcome.repetitions, outcome.metrics, outcome.run_info, strict=False)
                if v is not None]
        if not secs:
            return None
        seconds = aggregate(secs, c.objective.aggregate, maximize=False)
    bb = 0
    if c.fs.tier is DATAWARP:
        bb = int(outcome.config.get("bb.nodes", bb_default if bb_default is not None else 1))
    return CostParts(seconds, c.app.pattern.nodes, bb)


def told_values(c: Campaign, outcome: TrialOutcome, parts: CostParts | None) -> float | list[float]:
    """What ``study.tell`` gets for a completed trial: the metric, and the cost with ``objective.cost``."""
    assert outcome.value is not None
    if c.objective.cost is None:
        return float(outcome.value)
    assert parts is not None
    return [float(outcome.value), parts.cost(c.objective.cost.exchange_rate)]


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

"""Which configuration a production job runs: the best known one, or a bounded exploratory one.

An exploratory configuration must be one neither the history nor the model expects to be much slower than
the best known one; either objection rejects it. The history objects when measured configurations *near*
the candidate exist and none of them measured within ``max_slowdown`` of the best. Near means the same
value on every parameter that matters (integers within 10%); a parameter does not matter when the history
has measured several of its values, the candidate's among them, and the median of every value's trials is
within ``max_slowdown`` of the others'. The history never vouches against the model: in a simulated month
a candidate near measurements within the bound (on values of each parameter that were each fine alone)
ran at 0.56x the best. Where the model cannot say (a metric it does not predict), the history decides; a
rule-abiding candidate neither objects to is accepted: that is how new regions get measured at all.
"""

from __future__ import annotations

import random
import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import optuna
from optuna.trial import FrozenTrial

from autotune import trialrecord
from autotune.campaign import worst_values
from autotune.errors import ConfigError
from autotune.optimize import model_metric
from autotune.space import BoundSpace, Config

Measured = tuple[Config, float]  # a completed trial's configuration and its 'larger is better' score


@dataclass(frozen=True)
class Policy:
    """``explore``: the fraction of jobs that try a new configuration; ``max_slowdown``: an exploratory
    configuration must be neither measured near nor predicted more than this much slower than the best
    known one; ``tries``: how many proposals are judged (by the history and the model) before the job
    falls back to the best known one; ``rule_tries``: how many rule-breaking proposals (cheap: nothing is
    judged) it tolerates on top; ``model_check``: whether the model judges too (off: the history alone, as
    where the model cannot judge)."""

    explore: float = 0.2
    max_slowdown: float = 0.25
    tries: int = 20
    rule_tries: int = 100
    model_check: bool = True

    def __post_init__(self) -> None:
        if not 0.0 <= self.explore <= 1.0:
            raise ConfigError(f"--explore: {self.explore} must be a fraction between 0 and 1")
        if not 0.0 <= self.max_slowdown < 1.0:
            raise ConfigError(f"--max-slowdown: {self.max_slowdown} must be a fraction in [0, 1)")

    def wants_exploration(self, rng: random.Random) -> bool:
        return rng.random() < self.explore


def score(value: float, maximize: bool) -> float | None:
    """A metric value as a 'larger is better' score (None for a value that is not a positive number)."""
    if not isinstance(value, (int, float)) or value <= 0:
        return None
    return float(value) if maximize else 1.0 / float(value)


def predicted(space: BoundSpace, config: Config, metric: str, maximize: bool) -> float | None:
    """The model's value for ``config`` as a 'larger is better' score (None: the model cannot say)."""
    value = model_metric(space, config, metric)
    return None if value is None else score(value, maximize)


def _near(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, int) or not isinstance(b, int):
        return bool(a == b)
    return abs(a - b) <= 0.1 * max(abs(a), abs(b))


def parameters_that_matter(space: BoundSpace, history: Sequence[Measured], max_slowdown: float,
                           candidate: Config | None = None) -> list[str]:
    """The active parameters the history does not show to be harmless (see the module's docstring). For a
    ``candidate``, a parameter is harmless only if the candidate's own value of it was measured too: that
    the values tried so far did not matter says nothing about a value never tried."""
    out = []
    for p in space.active:
        groups: dict[Any, list[float]] = defaultdict(list)
        for cfg, s in history:
            groups[cfg.get(p.name)].append(s)
        medians = [statistics.median(v) for v in groups.values()]
        tried = candidate is None or any(_near(candidate.get(p.name), v) for v in groups)
        if len(medians) < 2 or min(medians) < (1.0 - max_slowdown) * max(medians) or not tried:
            out.append(p.name)
    return out


def history_verdict(space: BoundSpace, candidate: Config, history: Sequence[Measured], best: float,
                    max_slowdown: float) -> bool | None:
    """True: a near configuration measured within ``max_slowdown`` of ``best``; False: every near one
    measured slower than that; None: nothing near was measured (the history cannot say)."""
    names = parameters_that_matter(space, history, max_slowdown, candidate)
    near = [s for cfg, s in history if all(_near(candidate.get(n), cfg.get(n)) for n in names)]
    if not near:
        return None
    return max(near) >= (1.0 - max_slowdown) * best


def acceptable(space: BoundSpace, candidate: Config, best: Config, metric: str, maximize: bool,
               max_slowdown: float, history: Sequence[Measured] = ()) -> bool:
    """True when neither the history nor the model expects ``candidate`` to be more than ``max_slowdown``
    slower than ``best``; a configuration neither can judge is accepted only if it breaks no rule."""
    return why_rejected(space, candidate, best, metric, maximize, max_slowdown, history) == ""


def why_rejected(space: BoundSpace, candidate: Config, best: Config, metric: str, maximize: bool,
                 max_slowdown: float, history: Sequence[Measured] = (), model: bool = True) -> str:
    """'' when ``candidate`` is acceptable, else ``rules``, ``history`` or ``model`` (only with ``model``)."""
    if not space.feasible(candidate):
        return "rules"
    if history and history_verdict(space, candidate, history, max(s for _, s in history), max_slowdown) is False:
        return "history"
    if not model:
        return ""
    cand, ref = predicted(space, candidate, metric, maximize), predicted(space, best, metric, maximize)
    if cand is None or ref is None:
        return ""
    return "" if cand >= (1.0 - max_slowdown) * ref else "model"


def measured(trials: Sequence[optuna.trial.FrozenTrial], maximize: bool, config_of: Any) -> list[Measured]:
    """The completed, really run ``trials`` as (configuration, score)."""
    out = []
    for t in trials:
        if t.state != optuna.trial.TrialState.COMPLETE or not trialrecord.read(t).ran:
            continue
        s = score(t.values[0], maximize) if t.values else None
        if s is not None:
            try:
                out.append((config_of(t), s))
            except (ConfigError, KeyError, ValueError):
                continue
    return out


def sandbox(study: optuna.Study, window: Sequence[optuna.trial.FrozenTrial],
            sampler: optuna.samplers.BaseSampler) -> optuna.Study:
    """An in-memory copy of ``study`` holding only ``window`` (its recent finished trials): the sampler
    proposes from it, so its cost is bounded by the window, not by the study's history, and the real
    study gets only the finished records and the job's own trial (``record``)."""
    box = optuna.create_study(directions=study.directions, sampler=sampler)
    trialrecord.copy_study(study, box)
    box.add_trials([t for t in window if t.state.is_finished()])
    return box


def explore(box: optuna.Study, space: BoundSpace, best: Config, metric: str, maximize: bool,
            policy: Policy, history: Sequence[Measured] = ()) -> tuple[optuna.Trial | None, list[FrozenTrial]]:
    """Ask the sandbox's sampler for a new configuration the policy accepts (its trial is left RUNNING in the
    sandbox), and the rejected proposals to record in the real study. A proposal that breaks a rule is
    told as a campaign tells it (the worst value, a violated constraint); one the history or the model
    advises against is told PRUNED: either way the sampler moves on, and ``rejected_by`` says why. None:
    nothing acceptable was proposed."""
    judged = broke = 0
    rejected: list[FrozenTrial] = []
    while judged < policy.tries and broke < policy.rule_tries:
        trial = box.ask(fixed_distributions=space.distributions())
        config = space.from_optuna(trial.params)
        violations = space.violations(config)
        trial.set_constraint("rules", max(violations.values(), default=0.0))
        why = why_rejected(space, config, best, metric, maximize, policy.max_slowdown, history,
                           policy.model_check)
        if not why:
            return trial, rejected
        trialrecord.write(trial, rejected_by=why, worker="service")
        if why == "rules":
            broke += 1
            trialrecord.write(trial, infeasible=sorted(n for n, v in violations.items() if v > 0))
            rejected.append(box.tell(trial, worst_values(box)))
        else:
            judged += 1
            rejected.append(box.tell(trial, state=optuna.trial.TrialState.PRUNED))
    return None, rejected

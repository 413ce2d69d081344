"""Warm start from an earlier campaign of the same app on the same system (an Optuna storage + study)."""

from __future__ import annotations

from typing import Any

import optuna
from optuna.trial import TrialState, create_trial

from autotune import trialrecord
from autotune._storage import make_storage
from autotune.errors import ConfigError
from autotune.space import BoundSpace, Config


def load_source(storage: str, study: str) -> optuna.Study:
    try:
        return optuna.load_study(study_name=study, storage=make_storage(storage))
    except KeyError:
        raise ConfigError(f"sampler.warm_start: study {study!r} not found in {storage}") from None


def _done(source: optuna.Study) -> list[optuna.trial.FrozenTrial]:
    return [t for t in source.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
            if trialrecord.read(t).ran and t.values]


def warm_configs(source: optuna.Study, space: BoundSpace, top: int) -> list[Config]:
    """The earlier campaign's ``top`` best configurations that are valid in ``space``."""
    maximize = source.directions[0] == optuna.study.StudyDirection.MAXIMIZE
    done = sorted(_done(source), key=lambda t: t.values[0], reverse=maximize)
    out: list[Config] = []
    for t in done:
        cfg = space.from_optuna(t.params)
        if not all(p.name in cfg and p.contains(cfg[p.name]) for p in space.active):
            continue
        if space.feasible(cfg) and cfg not in out:
            out.append(cfg)
        if len(out) >= top:
            break
    return out


def add_history(study: optuna.Study, source: optuna.Study, space: BoundSpace) -> int:
    """Copy the earlier campaign's results into ``study`` as sampler history (not counted by the budget); a trial
    copied already (a set-up stopped half-way, done again) is not copied twice."""
    dists = space.distributions()
    copied = {trialrecord.read(t).warm_start_of for t in study.get_trials(deepcopy=False)}
    n = 0
    for t in _done(source):
        if t.number in copied:
            continue
        try:
            params = {k: t.params[k] for k in dists}
            study.add_trial(create_trial(params=params, distributions=dists, value=t.values[0],
                                         user_attrs=trialrecord.attrs(warm_start_of=t.number)))
        except (KeyError, ValueError):
            continue
        n += 1
    return n


def warm_start(study: optuna.Study, space: BoundSpace, spec: dict[str, Any]) -> list[Config]:
    """Add the source's history to ``study`` and return its top configurations to run first."""
    source = load_source(str(spec["storage"]), str(spec["study"]))
    if spec.get("history", True):
        add_history(study, source, space)
    return warm_configs(source, space, int(spec.get("top", 3)))

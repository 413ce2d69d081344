"""What a resumed study keeps and what it leaves behind.

A study has an identity: the system, the file system it was measured on, the application and the metric.
A campaign that names another one is refused (its measurements would not carry over). The space may change
between runs (a range narrowed or widened; a categorical's choices cannot change within a study, ``check_choices``):
the study records the space it last ran with (user attribute ``space_searched``),
queued trials outside it are dropped with a notice, and completed trials outside it are kept but never
recommended (``in_space``). A resumed sampler continues rather than replays: see ``resume_seed``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import optuna
from optuna.distributions import (
    BaseDistribution,
    CategoricalDistribution,
    FloatDistribution,
    IntDistribution,
    distribution_to_json,
    json_to_distribution,
)
from optuna.trial import FrozenTrial, TrialState

from autotune import trialrecord
from autotune.errors import ConfigError
from autotune.hints import inert
from autotune.space import BoundSpace, Config

DUPLICATE = "duplicate"  # settle_unneeded's answer for a configuration already measured
# what a study measured: the key in ``Runtime.info`` and the campaign key a user changes
IDENTITY = (("system", "system"), ("filesystem", "target.filesystem"), ("app", "app.name"),
            ("metric", "objective.metric"))


def check_identity(study: optuna.Study, info: Mapping[str, Any]) -> None:
    """Refuse (one line naming both values) a campaign whose target, app or metric differs from the study's."""
    if not study.get_trials(deepcopy=False):
        return  # nothing measured yet: the study takes the campaign's identity
    for key, label in IDENTITY:
        had = getattr(trialrecord.read_study(study), key)
        if had is not None and had != info.get(key):
            raise ConfigError(f"study {study.study_name!r} was measured with {label} {had!r}, the campaign says "
                              f"{info.get(key)!r}: its results do not carry over; use another --study "
                              "(or set the campaign back)")


def check_choices(study: optuna.Study, distributions: Mapping[str, BaseDistribution]) -> None:
    """Refuse (one line naming both lists) a categorical whose choices differ from those the study first asked it
    with: Optuna keeps one value space per categorical parameter in a study (its storages compare a new trial's
    distribution with the first recorded one), so no trial of such a campaign could be asked. Ranges may change."""
    seen: set[str] = set()
    for t in study.get_trials(deepcopy=False):
        for name, had in t.distributions.items():
            if name in seen:
                continue
            seen.add(name)
            now = distributions.get(name)
            if isinstance(had, CategoricalDistribution) and isinstance(now, CategoricalDistribution) and had != now:
                raise ConfigError(
                    f"{name}: the choices {list(now.choices)} differ from {list(had.choices)}, those study "
                    f"{study.study_name!r} was searched with: a study keeps a categorical's choices (Optuna); list "
                    "them as before (in the same order), or use another --study")
        if seen >= distributions.keys():
            return


def record_space(study: optuna.Study, distributions: Mapping[str, BaseDistribution]) -> None:
    """Store the space this run searches on the study (read by ``in_space``)."""
    value = {name: distribution_to_json(d) for name, d in distributions.items()}
    trialrecord.write_study(study, space_searched=value)


def _within(d: BaseDistribution, value: Any) -> bool:
    if isinstance(d, CategoricalDistribution):
        return value in d.choices
    if isinstance(d, IntDistribution | FloatDistribution) and isinstance(value, int | float):
        if not d.low <= value <= d.high:
            return False
        return d.step is None or abs((value - d.low) / d.step - round((value - d.low) / d.step)) < 1e-9
    return False


def outside(params: Mapping[str, Any], distributions: Mapping[str, BaseDistribution]) -> list[str]:
    """``name=value`` of each parameter of ``params`` that the space does not contain (or no longer searches)."""
    return [f"{k}={v}" for k, v in sorted(params.items())
            if k not in distributions or not _within(distributions[k], v)]


def stored_space(study: optuna.Study) -> dict[str, BaseDistribution] | None:
    """The space the study last ran with, or None (a study recorded before spaces were kept)."""
    raw = trialrecord.read_study(study).space_searched
    if raw is None:
        return None
    try:
        return {str(k): json_to_distribution(v) for k, v in raw.items()}
    except (ValueError, TypeError, KeyError):
        return None


def in_space(study: optuna.Study, trials: list[FrozenTrial]) -> list[FrozenTrial]:
    """The trials a recommendation may name: those inside the space the study last ran with.

    The default trial always qualifies: it applies no searched setting (``Runtime.settings_for``)."""
    space = stored_space(study)
    if space is None:
        return trials
    return [t for t in trials if trialrecord.read(t).is_default or not outside(t.params, space)]


def drop_queued_outside(study: optuna.Study, distributions: Mapping[str, BaseDistribution]) -> list[str]:
    """Fail the queued (WAITING) trials whose fixed configuration lies outside the space (a value out of range,
    or a parameter no longer searched); one line each."""
    dropped = []
    for t in study.get_trials(deepcopy=False, states=(TrialState.WAITING,)):
        fixed = t.system_attrs.get("fixed_params")
        bad = outside(fixed, distributions) if isinstance(fixed, dict) else []
        if bad and not trialrecord.read(t).is_default:  # the default applies no searched setting: it runs
            _drop_queued(study, t._trial_id, f"queued configuration outside the current space ({', '.join(bad)})")
            dropped.append(f"trial {t.number}: {', '.join(bad)}")
    return dropped


def _drop_queued(study: optuna.Study, trial_id: int, why: str) -> None:
    """Fail a queued trial that must never run, recording why; it does not count toward the budget."""
    # Optuna has no public call to finish a queued trial: the storage's (as for interrupted trials)
    trialrecord.write_stored(study._storage, trial_id, dropped=why)
    study._storage.set_trial_state_values(trial_id, TrialState.FAIL)


def settle_unneeded(study: optuna.Study, trial: optuna.Trial, distributions: Mapping[str, BaseDistribution],
                    space: BoundSpace | None = None) -> str | None:
    """Tell an asked trial that must not run and say why; None when it runs.

    Queued with values outside the space (by a worker that still had the old space): failed, with a notice.
    A configuration already completed (e.g. a seeded sequence from before a resume), or with ``space`` its
    physical twin (the same run: it differs only in settings that cannot act, e.g. aggregators with collective
    buffering disabled; ``autotune.hints.inert``): failed with ``duplicate_of`` naming the twin, never run, not
    counted (``DUPLICATE``); failed, not told the twin's values, so no sampler sees one measurement twice. The
    default configuration always runs (it applies no searched setting), and a rule of thumb or the application's
    baseline is a twin only of the same values (it is run as the user would run it). A retry is checked too: the
    trial it retries may have been killed before it was settled as a twin (asked, never run), or another worker
    may have completed the configuration meanwhile."""
    record = trialrecord.read(trial)
    if record.is_default:
        return None
    bad = outside(trial.params, distributions)
    if bad:
        trialrecord.write(trial, dropped=f"queued configuration outside the current space ({', '.join(bad)})")
        study.tell(trial, state=TrialState.FAIL)
        return f"queued trial {trial.number}: {', '.join(bad)}: outside the current space, dropped"
    as_run = None if space is None or record.rule_of_thumb or record.baseline else space
    twin = completed_twin(study, trial.params, as_run)
    if twin is None:
        return None
    trialrecord.write(trial, duplicate_of=twin.number)
    study.tell(trial, state=TrialState.FAIL)
    return DUPLICATE


def physical_key(space: BoundSpace, config: Config) -> tuple[tuple[str, Any], ...]:
    """``config`` with each setting that cannot act (``autotune.hints.inert``) at its default, as a sorted key:
    configurations with one key are the same run (physical twins)."""
    default = space.default_config()
    dead = inert(config, space.pattern.phases)
    return tuple(sorted((k, default.get(k) if k in dead else v) for k, v in config.items()))


def completed_twin(study: optuna.Study, params: Mapping[str, Any], space: BoundSpace | None = None) -> FrozenTrial | None:
    """The first completed trial that ran exactly ``params`` (the same Optuna parameters) or, with ``space``, the
    same physical configuration (``physical_key``); None when there is none.

    The default trial measured the space's default values (it sets nothing, and the space's defaults are what
    the system does then): a proposal of the same values repeats it."""
    key = physical_key(space, space.from_optuna(dict(params))) if space is not None else None
    for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
        if not (trialrecord.read(t).ran and t.values):
            continue
        if t.params == params or (space is not None and t.params.keys() == params.keys()
                                  and physical_key(space, space.from_optuna(t.params)) == key):
            return t
    return None


def feasible_count(space: BoundSpace, limit: int = 4096) -> int | None:
    """How many feasible configurations ``space`` holds, when it is small enough to count exactly (else None)."""
    if any(p.count() > len(p.values()) for p in space.active) or space.size() > limit:
        return None  # values thinned, or too many to enumerate at every start
    return sum(1 for _ in space.grid())


def completed_configs(study: optuna.Study) -> int:
    """Distinct configurations completed by trials that ran (the default's included)."""
    return len({tuple(sorted(t.params.items())) for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
                if trialrecord.read(t).ran})

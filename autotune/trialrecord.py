"""The trial record: every attribute autotune stores on an Optuna trial or study, in one place.

Optuna keeps a trial's and a study's user attributes as a string-keyed map whose values are JSON
(``json.dumps`` on the RDB storages, a deep copy in memory; Optuna documents only JSON-serialisable values).
Here each attribute is a field of a frozen dataclass — :class:`TrialRecord` for a trial, :class:`StudyRecord`
for a study — whose name is the key, whose annotation is the Python type and whose ``doc`` metadata is its
meaning. Writers go through :func:`write` / :func:`write_stored` / :func:`attrs` / :func:`write_study`, which
refuse an unknown key or a value of the wrong type with a one-line :class:`RecordError`; readers go through
:func:`read` / :func:`read_study`, which return the dataclass with defaults for what is missing.

Encoding: JSON scalars, lists (a tuple is stored as a list) and objects with string keys, as Optuna stores them.
Version rule: every write stamps ``record_version`` = :data:`FORMAT_VERSION`. A trial or study with no stamp was
written before the stamp existed: it is version 1, whose keys and types are those of version 2 (version 2 added
only the stamp), so it reads as is. A value of the wrong type in a stored record (another tool wrote it) reads
as the field's default; a stamp newer than :data:`FORMAT_VERSION` reads the keys this version knows.
"""

from __future__ import annotations

import types
from collections.abc import Iterable, Mapping
from dataclasses import MISSING, dataclass, field, fields
from functools import cache
from typing import Any, Union, get_args, get_origin, get_type_hints

from autotune.errors import ConfigError

FORMAT_VERSION = 2
VERSION = "record_version"  # the key of the stamp, on trials and on studies


class RecordError(ConfigError):
    """A trial or study attribute with an unknown key or a value of the wrong type."""


def _doc(meaning: str) -> dict[str, str]:
    """A field's metadata: its meaning (what :func:`doc` returns)."""
    return {"doc": meaning}


@dataclass(frozen=True)
class TrialRecord:
    """What autotune records on one trial (the field name is the user attribute's key)."""

    record_version: int = field(default=1, metadata=_doc("format of this record (1: written before the stamp existed)"))
    # what the trial is
    ran: bool = field(default=False, metadata=_doc(
        "really run: the budget counts it (a rule-breaker, a duplicate or an interrupted run did not)"))
    is_default: bool = field(default=False, metadata=_doc("the system's default configuration (the reference of every gain)"))
    baseline: bool = field(default=False, metadata=_doc("the application's own settings (campaign ``baseline``)"))
    initial: bool = field(default=False, metadata=_doc("queued by the warm or model-informed start"))
    retry_of: int | None = field(default=None, metadata=_doc("the trial this one runs again (an interrupted or lost run)"))
    warm_start_of: int | None = field(default=None, metadata=_doc("the trial of the earlier study this one was copied from"))
    proposed_by: str = field(default="", metadata=_doc(
        "who proposed it in the in-loop model sampler: 'model' or the base sampler's name"))
    # why it did not run, or not to the end
    infeasible: list[str] = field(default_factory=list, metadata=_doc(
        "the rules its configuration broke (told the worst value, never run)"))
    duplicate_of: int | None = field(default=None, metadata=_doc("the completed trial whose configuration it repeats (not run)"))
    duplicate_default: bool = field(default=False, metadata=_doc(
        "a second default enqueued by a concurrent worker (failed, not run)"))
    dropped: str = field(default="", metadata=_doc("why a queued trial was dropped on resume (outside the current space)"))
    interrupted: bool = field(default=False, metadata=_doc(
        "stopped by the user or a killed campaign; its configuration runs again"))
    error: str | None = field(default=None, metadata=_doc("one line: why the trial failed"))
    rejected_by: str = field(default="", metadata=_doc("why the service's exploration policy rejected the proposal"))
    # who ran it
    worker: str = field(default="", metadata=_doc("the worker that claimed it ('service' for a production job's trial)"))
    service: str = field(default="", metadata=_doc("a production job's trial: 'explore', 'best' or 'default'"))
    service_token_sha256: str = field(default="", metadata=_doc(
        "SHA-256 of the token only the asking job holds (tell checks it)"))
    owner: str = field(default="", metadata=_doc("the user whose job asked"))
    job_id: str = field(default="", metadata=_doc("the batch job that asked"))
    host: str = field(default="", metadata=_doc("the host the job asked from"))
    asked_at: float | None = field(default=None, metadata=_doc("POSIX time of the ask"))
    expires_at: float | None = field(default=None, metadata=_doc("POSIX time after which an untold production trial fails"))
    told_at: float | None = field(default=None, metadata=_doc("POSIX time of the tell"))
    exit_status: int | None = field(default=None, metadata=_doc("the production job's exit status (tell --exit-status)"))
    # what it measured
    config: dict[str, Any] | None = field(default=None, metadata=_doc(
        "the configuration as the campaign names it (setting -> value)"))
    repetitions: list[float | None] = field(default_factory=list, metadata=_doc(
        "the metric of each repetition (None: that repetition failed)"))
    repetition_errors: list[str | None] = field(default_factory=list, metadata=_doc(
        "one line per failed repetition (None: it succeeded)"))
    failed_repetitions: int = field(default=0, metadata=_doc("how many repetitions failed"))
    spread: float | None = field(default=None, metadata=_doc("relative spread (max - min) / max of the successful repetitions"))
    duration_s: float = field(default=0.0, metadata=_doc("wall seconds the trial took, all repetitions"))
    run_info: list[dict[str, Any]] = field(default_factory=list, metadata=_doc(
        "per repetition: what the launcher reported (wall_s, job id, ...)"))
    metrics: list[dict[str, float]] = field(default_factory=list, metadata=_doc("per repetition: every metric extracted"))
    cost: dict[str, Any] | None = field(default=None, metadata=_doc("the trial's cost parts and its cost at the campaign's rate"))
    command: str = field(default="", metadata=_doc("the command line of its first repetition"))
    stderr_tail: str = field(default="", metadata=_doc("the end of the last repetition's standard error"))
    # the hints it set, and whether they took effect
    hints: dict[str, str] = field(default_factory=dict, metadata=_doc("the MPI-IO hints and file-system settings it applied"))
    hints_in_effect: dict[str, Any] = field(default_factory=dict, metadata=_doc("the hints the run reported in effect"))
    hints_not_in_effect: dict[str, Any] = field(default_factory=dict, metadata=_doc(
        "the hints set but not in effect (ignored by the library)"))
    verification: dict[str, Any] = field(default_factory=dict, metadata=_doc(
        "per setting: how its effect was verified and the verdict"))
    hints_took_effect: bool | None = field(default=True, metadata=_doc("every setting took effect (None: not verifiable)"))
    # the in-loop model sampler's state when the trial was proposed
    model_constants: dict[str, float] = field(default_factory=dict, metadata=_doc("the model's constants in force"))
    model_moved: dict[str, float] = field(default_factory=dict, metadata=_doc(
        "the constants that moved from their start (relative change)"))
    model_fitted_on: int | None = field(default=None, metadata=_doc("completed trials of the model's last refit"))
    model_rho: float | None = field(default=None, metadata=_doc("rank correlation of model and measurements"))
    model_share: float | None = field(default=None, metadata=_doc("share of proposals the model makes"))


@dataclass(frozen=True)
class StudyRecord:
    """What autotune records on a study: what it measures (set up by the campaign) and what it concluded."""

    record_version: int = field(default=1, metadata=_doc("format of this record (1: written before the stamp existed)"))
    system: str | None = field(default=None, metadata=_doc("the system profile's name"))
    filesystem: str | None = field(default=None, metadata=_doc("the target file system's name"))
    fs_kind: str | None = field(default=None, metadata=_doc("the target file system's kind"))
    app: str | None = field(default=None, metadata=_doc("the application's name"))
    space: str | None = field(default=None, metadata=_doc("the search space's name"))
    launcher: str | None = field(default=None, metadata=_doc("the launcher's name"))
    metric: str | None = field(default=None, metadata=_doc("the objective's metric"))
    direction: str | None = field(default=None, metadata=_doc("'maximize' or 'minimize'"))
    repeats: int | None = field(default=None, metadata=_doc("repetitions per trial the campaign ran with"))
    pattern: dict[str, Any] | None = field(default=None, metadata=_doc(
        "the application's I/O pattern (hints finds the nearest one)"))
    fixed: dict[str, Any] | None = field(default=None, metadata=_doc(
        "the settings the space fixes (hints renders them without the campaign)"))
    metric_kind: str | None = field(default=None, metadata=_doc("what the metric measures ('bandwidth', 'time', ...)"))
    plausible_max: float | None = field(default=None, metadata=_doc(
        "the model's ceiling of the target in MiB/s (None: no bound known)"))
    space_searched: dict[str, Any] | None = field(default=None, metadata=_doc(
        "{optuna name: distribution JSON} of the space last searched"))
    cost: dict[str, Any] | None = field(default=None, metadata=_doc("the cost rule the study's costs were computed with"))
    confirmation: dict[str, Any] | None = field(default=None, metadata=_doc(
        "the confirmation of the best trial against the default"))
    recommended: dict[str, Any] | None = field(default=None, metadata=_doc(
        "the trial re-measurement recommends, with its values"))
    best_record: dict[str, Any] | None = field(default=None, metadata=_doc(
        "the service's incremental best-trial record: best and default trial up to a watermark, and the median"))


# the keys the bounded SQL reads of a study name (campaign.trials_in, counts, ...)
RAN, IS_DEFAULT, BASELINE, DURATION_S = "ran", "is_default", "baseline", "duration_s"
INFEASIBLE, DUPLICATE_OF, DROPPED = "infeasible", "duplicate_of", "dropped"
PROPOSED_BY = "proposed_by"


@cache
def _types(cls: type) -> dict[str, Any]:
    return get_type_hints(cls)


@cache
def _spelled(cls: type) -> dict[str, str]:
    return {f.name: str(f.type) for f in fields(cls)}


def _conforms(value: Any, tp: Any) -> bool:
    origin, args = get_origin(tp), get_args(tp)
    if tp is Any:
        return True
    if origin in (Union, types.UnionType):
        return any(_conforms(value, a) for a in args)
    if tp is type(None):
        return value is None
    if tp is bool:
        return isinstance(value, bool)
    if tp is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if tp is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if tp is str:
        return isinstance(value, str)
    if origin is list:
        return isinstance(value, list | tuple) and all(_conforms(v, args[0]) for v in value)
    if origin is dict:
        return isinstance(value, dict) and all(isinstance(k, str) and _conforms(v, args[1]) for k, v in value.items())
    raise TypeError(f"trial record: no JSON encoding for type {tp!r}")


def _encode(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return [_encode(v) for v in value]
    if isinstance(value, dict):
        return {k: _encode(v) for k, v in value.items()}
    return value


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _checked(cls: type, what: str, values: Mapping[str, Any]) -> dict[str, Any]:
    hints = _types(cls)
    out: dict[str, Any] = {}
    for key, value in values.items():
        if key not in hints or key == VERSION:
            raise RecordError(f"{what} attribute {key!r}={_short(value)}: unknown key "
                              f"(expected one of {', '.join(k for k in hints if k != VERSION)})")
        if not _conforms(value, hints[key]):
            raise RecordError(f"{what} attribute {key}={_short(value)}: expected {_spelled(cls)[key]}")
        out[key] = _encode(value)
    if out:
        out[VERSION] = FORMAT_VERSION
    return out


def attrs(base: Any = None, **values: Any) -> dict[str, Any]:
    """The encoded, stamped user attributes of a trial about to be created (``enqueue_trial(user_attrs=...)``,
    ``create_trial``): those of trial ``base`` (if given, as stored) updated by ``values``."""
    return {**(dict(base.user_attrs) if base is not None else {}), **_checked(TrialRecord, "trial", values)}


def write(trial: Any, **values: Any) -> None:
    """Store ``values`` on a live ``optuna.Trial`` (checked, encoded, stamped)."""
    for key, value in _checked(TrialRecord, "trial", values).items():
        trial.set_user_attr(key, value)


def write_stored(storage: Any, trial_id: int, **values: Any) -> None:
    """Store ``values`` on the trial ``trial_id`` of an Optuna storage (a finished or another process's trial)."""
    for key, value in _checked(TrialRecord, "trial", values).items():
        storage.set_trial_user_attr(trial_id, key, value)


@cache
def _shallow(cls: type) -> dict[str, tuple[tuple[type, ...], bool]]:
    """Per field: the Python types its stored value may have at the top, and whether a bool is refused (an int or
    float field); reading checks only these (cheap per trial), writing checks the whole value."""
    out = {}
    for key, tp in _types(cls).items():
        allowed: list[type] = []
        for t in get_args(tp) if get_origin(tp) in (Union, types.UnionType) else (tp,):
            base = get_origin(t) or t
            allowed += [int, float] if base is float else [list, tuple] if base is list else [base]
        out[key] = (tuple(allowed), bool not in allowed)
    return out


@cache
def _defaults(cls: type) -> tuple[dict[str, Any], dict[str, Any]]:
    """The fields' plain defaults, and the factories of those whose default is a fresh list or dict."""
    plain = {f.name: f.default for f in fields(cls) if f.default is not MISSING}
    return plain, {f.name: f.default_factory for f in fields(cls) if f.default is MISSING}


def _read(cls: type, stored: Mapping[str, Any]) -> Any:
    shallow = _shallow(cls)
    plain, factories = _defaults(cls)
    values = {**plain, **{k: make() for k, make in factories.items()}}
    for key, value in stored.items():
        kind = shallow.get(key)
        if kind is not None and isinstance(value, kind[0]) and not (kind[1] and isinstance(value, bool)):
            values[key] = value
    record: Any = object.__new__(cls)  # the frozen dataclass's __init__ sets 47 fields one by one: per trial, too slow
    record.__dict__.update(values)
    return record


def read(trial: Any) -> TrialRecord:
    """The record of a trial (``FrozenTrial`` or ``optuna.Trial``), whatever version wrote it."""
    return _read(TrialRecord, trial.user_attrs)  # type: ignore[no-any-return]


def ran_trials(trials: Iterable[Any]) -> list[Any]:
    """The trials that were really run (complete or failed, ``ran``): what the budget counts."""
    return [t for t in trials if t.state.name in ("COMPLETE", "FAIL") and read(t).ran]


def read_study(study: Any) -> StudyRecord:
    """The record of a study (``optuna.Study`` or the ``FrozenStudy`` of ``storage.get_all_studies()``)."""
    return _read(StudyRecord, study.user_attrs)  # type: ignore[no-any-return]


def study_changes(study: Any, **values: Any) -> dict[str, Any]:
    """The checked ``values`` that differ from what ``study`` stores (one read of the study's attributes)."""
    checked = _checked(StudyRecord, "study", values)
    stored = study.user_attrs
    return {k: v for k, v in checked.items() if k != VERSION and stored.get(k) != v}


def write_study(study: Any, **values: Any) -> None:
    """Store on ``study`` those of ``values`` that differ from what it stores (checked, encoded, stamped)."""
    changed = study_changes(study, **values)
    if changed:
        for key, value in {**changed, VERSION: FORMAT_VERSION}.items():
            study.set_user_attr(key, value)


def store_study(study: Any, **values: Any) -> None:
    """Store ``values`` on ``study`` (checked, encoded, stamped) without reading what it stores: a hot path's write."""
    for key, value in _checked(StudyRecord, "study", values).items():
        study._storage.set_study_user_attr(study._study_id, key, value)


def copy_study(source: Any, target: Any) -> None:
    """Copy every attribute of study ``source`` onto study ``target`` as stored (a sandbox of the study)."""
    for key, value in source.user_attrs.items():
        target.set_user_attr(key, value)


def doc(cls: type, key: str) -> str:
    """The meaning of attribute ``key`` of ``TrialRecord`` or ``StudyRecord``."""
    return str(next(f.metadata["doc"] for f in fields(cls) if f.name == key))

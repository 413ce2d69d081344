"""Reading and writing the trial record through Optuna: writes checked against the schema, encoded and stamped;
reads tolerant of old, foreign and newer records."""

from __future__ import annotations

import types
from collections.abc import Iterable, Mapping
from dataclasses import MISSING, fields
from functools import cache
from typing import Any, Union, get_args, get_origin, get_type_hints

from autotune.trialrecord._schema import FORMAT_VERSION, VERSION, RecordError, StudyRecord, TrialRecord


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

"""Bounded reads of a study: what ``ask``, ``tell``, ``hints``, ``status`` and the summary need, without
loading every trial.

Optuna's RDB storage behind a study (``_CachedStorage``) reads *every* trial of the study into the process
on the first ``get_trials`` call, whatever states are asked for: with 100 production jobs a day, a year
of history costs seconds per call (optuna/optuna#3053). Here, on an RDB storage (SQLite, PostgreSQL), each
figure is one SQL statement over Optuna's own tables whose result is bounded (a count, one trial id, the
last ``n`` trial ids), and only the trials named by it are loaded. The storage stays the only source of
truth: there is nothing cached to go stale. Other storages (in-memory, the gRPC proxy) have no SQL: they
take the full listing, as before.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Container, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import optuna
from optuna.trial import FrozenTrial, TrialState

from autotune import trialrecord


def rdb(study: optuna.Study) -> optuna.storages.RDBStorage | None:
    """The study's RDB storage (unwrapped from Optuna's cache), or None for any other storage."""
    storage = study._storage
    backend = getattr(storage, "_backend", storage)
    return backend if isinstance(backend, optuna.storages.RDBStorage) else None


def _rows(db: optuna.storages.RDBStorage, sql: str, **params: Any) -> list[Any]:
    from sqlalchemy import text  # lazy: `autotune ask` over gRPC needs no SQLAlchemy

    with db.engine.connect() as conn:
        return list(conn.execute(text(sql), params).all())


def _one(db: optuna.storages.RDBStorage, rows: list[Any]) -> FrozenTrial | None:
    return db.get_trial(int(rows[0][0])) if rows else None


def trials_in(study: optuna.Study, states: Container[TrialState]) -> list[FrozenTrial]:
    """The study's trials in ``states`` (for RUNNING or WAITING: the few in flight), filtered by the database."""
    db = rdb(study)
    if db is None:
        return study.get_trials(deepcopy=False, states=tuple(TrialState) if states is None else states)  # type: ignore[arg-type]
    return db._get_trials(study._study_id, states, set(), -1)


def recent(study: optuna.Study, n: int, states: Sequence[TrialState] = (TrialState.COMPLETE,)) -> list[FrozenTrial]:
    """The last ``n`` trials in ``states`` (by creation), oldest first."""
    db = rdb(study)
    if db is None:
        return study.get_trials(deepcopy=False, states=tuple(states))[-n:]
    names = ", ".join(f"'{TrialState(s).name}'" for s in states)  # enum names: nothing from outside
    ids = _rows(db, f"SELECT trial_id FROM trials WHERE study_id = :s AND state IN ({names}) "
                    "ORDER BY trial_id DESC LIMIT :n", s=study._study_id, n=n)
    if not ids:
        return []
    # one bulk read of this study's trials in ``states`` from the window's first on (Optuna's own reader)
    return db._get_trials(study._study_id, states, set(), int(ids[-1][0]) - 1)


_RAN = (f"JOIN trial_user_attributes ran ON ran.trial_id = t.trial_id AND ran.key = '{trialrecord.RAN}' "
        "AND ran.value_json = 'true' ")


_DONE = ("FROM trials t JOIN trial_values v ON v.trial_id = t.trial_id AND v.objective = 0 " + _RAN +
         "WHERE t.study_id = :s AND t.state = 'COMPLETE' AND v.value_type = 'FINITE' ")
_PAGE = 20


def ran_median(study: optuna.Study, least: int) -> float | None:
    """The median objective-0 value of the really run, completed trials (None below ``least`` of them): a count
    and one or two rows, sorted by the database."""
    db = rdb(study)
    assert db is not None
    n = int(_rows(db, "SELECT COUNT(*) " + _DONE, s=study._study_id)[0][0])
    if n == 0 or n < least:
        return None
    rows = _rows(db, "SELECT v.value " + _DONE + "ORDER BY v.value LIMIT :k OFFSET :o", s=study._study_id,
                 k=2 - n % 2, o=(n - 1) // 2)
    return sum(float(r[0]) for r in rows) / len(rows)


def best_ran(study: optuna.Study, maximize: bool, flag: Callable[[float], str | None] | None = None,
             keep: Callable[[FrozenTrial], bool] | None = None) -> tuple[FrozenTrial | None, dict[int, str]]:
    """The really run, completed trial with the best objective-0 value (first of equals) that ``flag`` does not
    flag and ``keep`` keeps, or None; and the better trials ``flag`` flagged (number -> why). Read a page at a
    time from the top: flagged or left-out values are few and sit at the top, so this stays bounded."""
    db = rdb(study)
    assert db is not None
    order = "DESC" if maximize else "ASC"
    flagged: dict[int, str] = {}
    offset = 0
    while True:
        rows = _rows(db, "SELECT t.trial_id, t.number, v.value " + _DONE +
                     f"ORDER BY v.value {order}, t.number ASC LIMIT :k OFFSET :o",
                     s=study._study_id, k=_PAGE, o=offset)
        for trial_id, number, value in rows:
            why = flag(float(value)) if flag is not None else None
            if why is not None:
                flagged[int(number)] = why
                continue
            trial = db.get_trial(int(trial_id))
            if keep is None or keep(trial):
                return trial, flagged
        if len(rows) < _PAGE:
            return None, flagged
        offset += _PAGE


def first_flagged(study: optuna.Study, key: str, ran: bool = True) -> FrozenTrial | None:
    """The first completed trial with a value whose boolean record field ``key`` (``trialrecord.IS_DEFAULT``,
    ``trialrecord.BASELINE``) is true (and, with ``ran``, that
    really ran), or None."""
    db = rdb(study)
    if db is None:
        return next((t for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
                     if getattr(r := trialrecord.read(t), key) and t.values and (r.ran or not ran)), None)
    rows = _rows(db, "SELECT t.trial_id FROM trials t JOIN trial_user_attributes f ON f.trial_id = t.trial_id "
                     f"AND f.key = :key AND f.value_json = 'true' {_RAN if ran else ''}"
                     "JOIN trial_values v ON v.trial_id = t.trial_id AND v.objective = 0 "
                     "WHERE t.study_id = :s AND t.state = 'COMPLETE' ORDER BY t.number LIMIT 1",
                 s=study._study_id, key=key)
    return _one(db, rows)


@dataclass(frozen=True)
class Counts:
    """How many trials the study holds, by what they are (``ran``: really run; the budget counts them)."""

    states: dict[str, int]
    ran_complete: int
    ran_failed: int
    infeasible: int
    time_spent_s: float
    duplicates: int = 0  # asked trials that repeated a completed configuration (not run: ``duplicate_of``)
    dropped: int = 0     # queued trials outside the space, dropped on resume (``dropped``)
    rules: dict[str, int] = field(default_factory=dict)  # rule -> rule-breaking trials that broke it (not run)

    @property
    def total(self) -> int:
        return sum(self.states.values())


def counts(study: optuna.Study) -> Counts:
    """Trials per state, run/failed/rule-breaking counts and the seconds of runs, by aggregate queries."""
    db = rdb(study)
    if db is None:
        trials = [(t, trialrecord.read(t)) for t in study.get_trials(deepcopy=False)]
        ran = [(t, r) for t, r in trials if r.ran and t.state in (TrialState.COMPLETE, TrialState.FAIL)]
        states: dict[str, int] = {}
        for t, _ in trials:
            states[t.state.name] = states.get(t.state.name, 0) + 1
        return Counts(states, sum(t.state == TrialState.COMPLETE for t, _ in ran),
                      sum(t.state == TrialState.FAIL for t, _ in ran), sum(bool(r.infeasible) for _, r in trials),
                      sum(float(r.duration_s) for _, r in ran), sum(r.duplicate_of is not None for _, r in trials),
                      sum(bool(r.dropped) for _, r in trials), _tally(r.infeasible for _, r in trials))
    s = study._study_id
    states = {str(k): int(n) for k, n in _rows(db, "SELECT state, COUNT(*) FROM trials WHERE study_id = :s "
                                                   "GROUP BY state", s=s)}
    ran_by = {str(k): int(n) for k, n in _rows(db, f"SELECT t.state, COUNT(*) FROM trials t {_RAN}"
                                                   "WHERE t.study_id = :s GROUP BY t.state", s=s)}
    infeasible = _attr_count(db, s, trialrecord.INFEASIBLE)
    number = ("CASE WHEN d.value_json ~ '^-?[0-9.]+([eE][-+]?[0-9]+)?$' THEN CAST(d.value_json AS DOUBLE PRECISION) END"
              if db.engine.dialect.name == "postgresql" else "CAST(d.value_json AS REAL)")
    spent = _rows(db, f"SELECT SUM({number}) FROM trials t JOIN trial_user_attributes d ON d.trial_id = t.trial_id "
                      f"AND d.key = '{trialrecord.DURATION_S}' {_RAN}WHERE t.study_id = :s AND t.state IN ('COMPLETE', 'FAIL')",
                  s=s)[0][0]
    broken = _rows(db, "SELECT a.value_json, COUNT(*) FROM trials t JOIN trial_user_attributes a ON a.trial_id = "
                       "t.trial_id AND a.key = :key WHERE t.study_id = :s GROUP BY a.value_json", s=s,
                   key=trialrecord.INFEASIBLE)
    rules: dict[str, int] = {}
    for value, n in broken:  # one row per distinct list of broken rules
        for name in _tally([_json_list(value)]):
            rules[name] = rules.get(name, 0) + int(n)
    return Counts(states, ran_by.get("COMPLETE", 0), ran_by.get("FAIL", 0), infeasible, float(spent or 0.0),
                  _attr_count(db, s, trialrecord.DUPLICATE_OF), _attr_count(db, s, trialrecord.DROPPED), rules)


def _json_list(value: Any) -> list[str]:
    try:
        got = json.loads(value)
    except (TypeError, ValueError):
        return []
    return [str(x) for x in got] if isinstance(got, list) else []


def _tally(lists: Iterable[Iterable[str] | None]) -> dict[str, int]:
    """Rule name -> how many of ``lists`` name it."""
    out: dict[str, int] = {}
    for names in lists:
        for name in set(names or ()):
            out[name] = out.get(name, 0) + 1
    return out


def _attr_count(db: optuna.storages.RDBStorage, study_id: int, key: str) -> int:
    """How many of the study's trials have user attribute ``key`` set to something (not empty, false or null)."""
    return int(_rows(db, "SELECT COUNT(*) FROM trials t JOIN trial_user_attributes a ON a.trial_id = t.trial_id "
                         "AND a.key = :key WHERE t.study_id = :s AND a.value_json NOT IN ('[]', 'false', 'null', "
                         "'\"\"')", s=study_id, key=key)[0][0])

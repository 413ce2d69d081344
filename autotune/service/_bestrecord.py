"""The study's best trial kept incrementally, so ``ask`` and ``hints`` answer in time independent of history.

The record is a study user attribute (``best_record``): the best trial found among the trials up to a
*watermark* (every trial with an id at or below it was finished when the record was written: ids grow with
creation, and a trial still running holds the watermark below it), with the plausibility median it was judged
by. A reader catches up with one bounded query, the completed trials above the watermark (the trials asked
since: production jobs and campaign trials alike), and writes the record back. The median is refreshed,
and the best re-derived from every trial (``campaign.best_trial``'s rule), when the completed count has grown
by ``REFRESH`` of itself since, or when what the rule reads (metric kind, model ceiling, the space last
searched, the direction) changed. A reader racing another writes an equally true record (possibly of a lower
watermark): the next reader catches up further, so concurrent tells are never lost.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from typing import Any

import optuna
from optuna.trial import FrozenTrial

from autotune import trialrecord
from autotune.campaign import best_ran, best_trial, default_trial, in_space, ran_median, rdb, value_flag
from autotune.measure import MIN_TRIALS

KEY = "best_record"  # the study attribute (trialrecord.StudyRecord.best_record)
VERSION = 1
REFRESH = 0.01  # the median is recomputed once the completed runs grew by 1 % since it was
BASIS_KEYS = ("metric_kind", "plausible_max", "space_searched")
_RAN, _DEFAULT = trialrecord.RAN, trialrecord.IS_DEFAULT
_DONE = ("FROM trials t JOIN trial_values v ON v.trial_id = t.trial_id AND v.objective = 0 "
         f"JOIN trial_user_attributes ran ON ran.trial_id = t.trial_id AND ran.key = '{_RAN}' AND ran.value_json = 'true' "
         "WHERE t.study_id = :s AND t.state = 'COMPLETE' AND v.value_type = 'FINITE' ")
_FIRST_DEFAULT = (  # ``campaign.default_trial``'s query, over the trials above a watermark
    "SELECT t.number, t.trial_id FROM trials t JOIN trial_user_attributes d ON d.trial_id = t.trial_id "
    f"AND d.key = '{_DEFAULT}' AND d.value_json = 'true' "
    f"JOIN trial_user_attributes ran ON ran.trial_id = t.trial_id AND ran.key = '{_RAN}' AND ran.value_json = 'true' "
    "JOIN trial_values v ON v.trial_id = t.trial_id AND v.objective = 0 "
    "WHERE t.study_id = :s AND t.state = 'COMPLETE' AND t.trial_id > :lo ORDER BY t.number LIMIT 1")


def record_basis(attrs: dict[str, Any], maximize: bool) -> str:
    """A digest of what the best-trial rule reads besides the trials: a record of another basis is rebuilt."""
    seen = {k: attrs.get(k) for k in BASIS_KEYS} | {"maximize": maximize, "v": VERSION}
    return hashlib.sha256(json.dumps(seen, sort_keys=True, default=str).encode()).hexdigest()[:16]


def parse_record(raw: Any) -> dict[str, Any] | None:
    """The stored record, or None when missing or malformed (then it is rebuilt)."""
    if not isinstance(raw, dict) or raw.get("v") != VERSION or not isinstance(raw.get("basis"), str):
        return None
    ints = ("upto", "n", "settled")
    if any(not isinstance(raw.get(k), int) or isinstance(raw.get(k), bool) for k in ints):
        return None
    best, default = raw.get("best"), raw.get("default", 0)
    if best is not None and not (isinstance(best, list) and len(best) == 3):
        return None
    if default is not None and not (isinstance(default, list) and len(default) == 2):
        return None
    if raw.get("median") is not None and not isinstance(raw.get("median"), (int, float)):
        return None
    return raw


def settled(study: optuna.Study) -> int:
    """The recorded watermark (0: no record): every trial at or below it is finished, so a search for the
    running trials need only read the ids above it."""
    rec = parse_record(trialrecord.read_study(study).best_record)
    return int(rec["upto"]) if rec is not None else 0


def _rows(db: Any, sql: str, **params: Any) -> list[Any]:
    from sqlalchemy import text  # lazy: `autotune ask` over gRPC needs no SQLAlchemy

    with db.engine.connect() as conn:
        return list(conn.execute(text(sql), params).all())


def watermark(db: Any, study_id: int, after: int = 0) -> int:
    """The highest trial id at or below which every trial of the study is finished (0: none), given that all
    were at or below ``after`` (a finished trial stays finished: only the ids above it are read)."""
    row = _rows(db, "SELECT MIN(trial_id) FROM trials WHERE study_id = :s AND trial_id > :lo "
                    "AND state IN ('RUNNING', 'WAITING')", s=study_id, lo=after)[0]
    if row[0] is not None:
        return int(row[0]) - 1
    return int(_rows(db, "SELECT MAX(trial_id) FROM trials WHERE study_id = :s", s=study_id)[0][0] or after)


def known_best(study: optuna.Study, write: bool = True) -> FrozenTrial | None:
    """``campaign.best_trial(study)`` from the incremental record (bounded reads); other storages, and
    two-objective studies, take ``best_trial`` itself. ``write``: keep the caught-up record in the study."""
    return known(study, write)[0]


def known(study: optuna.Study, write: bool = True) -> tuple[FrozenTrial | None, FrozenTrial | None]:
    """(``campaign.best_trial``, ``campaign.default_trial``) of ``study``, from the record caught up."""
    db = rdb(study)
    if db is None or len(study.directions) != 1:
        return best_trial(study), default_trial(study)
    maximize = study.direction == optuna.study.StudyDirection.MAXIMIZE
    stored = trialrecord.read_study(study)
    basis = record_basis({k: getattr(stored, k) for k in BASIS_KEYS}, maximize)
    rec = parse_record(stored.best_record)
    if rec is None or rec["basis"] != basis:
        return _rebuild(study, db, basis, watermark(db, study._study_id), write)
    upto = max(rec["upto"], watermark(db, study._study_id, rec["upto"]))
    # every completed trial above the recorded watermark: those below the new one are final and counted;
    # those above it (finished while an older trial is still in flight) are read again next time
    new = _rows(db, "SELECT t.trial_id, t.number, v.value " + _DONE + "AND t.trial_id > :lo",
                s=study._study_id, lo=rec["upto"])
    settled_new = sum(1 for r in new if int(r[0]) <= upto)
    if rec["settled"] + len(new) - rec["n"] >= max(1, int(rec["n"] * REFRESH)):  # grown: a fresh median
        return _rebuild(study, db, basis, upto, write)
    best = _catch_up(study, db, rec, new, maximize)
    default = rec["default"]
    if default is None and new:  # the first default run: numbers grow with ids, so only newer trials can be it
        rows = _rows(db, _FIRST_DEFAULT, s=study._study_id, lo=rec["upto"])
        default = [int(rows[0][0]), int(rows[0][1])] if rows else None
    if write and (upto > rec["upto"] or (best is not None and _ref(best) != rec["best"])):
        _write(study, {**rec, "upto": upto, "settled": rec["settled"] + settled_new, "best": _ref(best),
                       "default": default if default is not None and default[1] <= upto else None})
    return best, _trial(db, default)


def _catch_up(study: optuna.Study, db: Any, rec: dict[str, Any], new: list[Any], maximize: bool
              ) -> FrozenTrial | None:
    """The recorded best, or a better plausible, in-space trial among ``new`` (first of equals by number)."""
    flag = value_flag(study, rec["median"])
    sign = -1.0 if maximize else 1.0
    best = rec["best"]
    for trial_id, number, value in sorted(new, key=lambda r: (sign * float(r[2]), int(r[1]))):
        if best is not None and (sign * float(value), int(number)) >= (sign * float(best[2]), int(best[0])):
            break  # sorted: nothing further is better
        if flag(float(value)) is not None:
            continue
        trial = db.get_trial(int(trial_id))
        if in_space(study, [trial]):
            return trial
    return _trial(db, best)


def _rebuild(study: optuna.Study, db: Any, basis: str, upto: int, write: bool
             ) -> tuple[FrozenTrial | None, FrozenTrial | None]:
    """The median, the best and the default run from every trial (the campaign's bounded queries), recorded up
    to ``upto``."""
    n = int(_rows(db, "SELECT COUNT(*) " + _DONE, s=study._study_id)[0][0])
    settled = int(_rows(db, "SELECT COUNT(*) " + _DONE + "AND t.trial_id <= :hi", s=study._study_id, hi=upto)[0][0])
    median = ran_median(study, MIN_TRIALS)
    best = best_ran(study, study.direction == optuna.study.StudyDirection.MAXIMIZE, value_flag(study, median),
                    keep=lambda t: bool(in_space(study, [t])))[0]
    default = default_trial(study)
    if write:
        _write(study, {"v": VERSION, "basis": basis, "upto": upto, "n": n, "settled": settled, "median": median,
                       "best": _ref(best),
                       "default": [default.number, default._trial_id] if default is not None and default._trial_id <= upto
                       else None})
    return best, default


def _ref(t: FrozenTrial | None) -> list[Any] | None:
    """How the record names a trial: [number, trial id, objective-0 value]."""
    return [t.number, t._trial_id, float(t.values[0]) if t.values else float("nan")] if t is not None else None


def _trial(db: Any, ref: list[Any] | None) -> FrozenTrial | None:
    return db.get_trial(int(ref[1])) if ref is not None else None


def _write(study: optuna.Study, rec: dict[str, Any]) -> None:
    """Keep the record (a reader that may not write, or a store busy for a moment, simply leaves it stale)."""
    with contextlib.suppress(Exception):  # the record is an optimisation: the next reader catches up again
        trialrecord.store_study(study, best_record=rec)

"""The work directory and the stores on it: checked before a campaign starts, kept consistent when the disk fills.

* ``prepare_stores``: the work directory must be a writable directory; an SQLite store that exists must
  be a readable SQLite database; an empty ``optuna.db`` in a work directory a campaign started in more
  than ``FRESH_S`` ago (``.autotune-started``) is refused: the study was lost, and starting again from
  trial 0 would silently mix two campaigns in MLflow. A younger one is another campaign creating it.
* ``DiskReserve`` + ``stop_cleanly``: a small file is kept in the work directory while the campaign runs.
  When the disk fills (ENOSPC, "database or disk is full"), it is deleted so that the running trials can
  still be marked failed-and-re-enqueued and the MLflow parent run closed; then the campaign stops with
  one line. Resuming after freeing space runs the stopped configurations again.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import optuna
from optuna.trial import TrialState

from autotune import _storelock, trialrecord
from autotune._safefile import check_no_links, make_dirs, write_file
from autotune.campaign.file import Campaign, check_study_name
from autotune.campaign.study._study import interrupt, ran_trials
from autotune.errors import AutotuneError, ConfigError
from autotune.tracking import TrackedTrial

RESERVE_NAME = ".autotune-reserve"
STARTED_NAME = ".autotune-started"
RESERVE_BYTES = 1 << 20  # enough for SQLite to record a failed trial and MLflow to close a run
FRESH_S = 10.0           # a work directory first used this recently may be another campaign creating its store
_FULL = ("database or disk is full", "no space left", "disk i/o error")


def sqlite_path(url: str) -> Path | None:
    """The file of an ``sqlite:///...`` URL (None for other stores and in-memory SQLite)."""
    if not url.startswith("sqlite:///"):
        return None
    path = url[len("sqlite:///"):].split("?", 1)[0]
    return Path(path) if path and path != ":memory:" else None


def prepare_workdir(workdir: Path) -> None:
    """Create ``workdir`` and check a file can be written there; otherwise one line naming it."""
    try:
        workdir.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=workdir, prefix=".autotune-write-test-"):
            pass
    except OSError as exc:
        raise ConfigError(f"workdir: {str(workdir)!r}: {exc.strerror or exc} "
                          f"(expected a writable directory; choose another with --workdir)") from None


def check_sqlite(path: Path, what: str) -> None:
    """A store file that exists must be an intact SQLite database (read-only check, nothing written).

    A hot journal beside it (a writer killed mid-transaction) cannot be rolled back by a read-only connection
    ("attempt to write a readonly database"): then the check opens it read-write, and SQLite's own crash
    recovery rolls the unfinished transaction back (sqlite.org/atomiccommit.html, "Hot Rollback Journals")."""
    if not path.exists() or path.stat().st_size == 0:
        return
    journal = path.with_name(path.name + "-journal")
    mode = "rw" if journal.is_file() and journal.stat().st_size > 0 else "ro"
    try:
        with contextlib.closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode={mode}", uri=True,
                                                timeout=_storelock.SQLITE_BUSY_S)) as db:
            row = db.execute("PRAGMA quick_check").fetchone()
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):  # busy, not broken: never advise replacing it
            raise _storelock.busy(f"{what} {str(path)!r}") from None
        raise ConfigError(f"{what} {str(path)!r}: {exc} (restore it from a backup, or move it away to start afresh)") from None
    except sqlite3.Error as exc:
        raise ConfigError(f"{what} {str(path)!r}: {exc} (restore it from a backup, or move it away to start afresh)") from None
    if not row or row[0] != "ok":
        raise ConfigError(f"{what} {str(path)!r}: corrupt ({row[0] if row else 'no answer'}); restore it from a backup, "
                          "or move it away to start afresh")


@contextlib.contextmanager
def nothing_left_on_failure(workdir: Path) -> Iterator[None]:
    """A work directory this command created is removed again when the command fails before it held anything
    but autotune's own markers (``.autotune-started``, the disk reserve, empty directories, lock files)."""
    existed = workdir.exists()
    try:
        yield
    except BaseException:
        if not existed:
            _remove_if_only_markers(workdir)
        raise


def _remove_if_only_markers(workdir: Path) -> None:
    ours = (STARTED_NAME, RESERVE_NAME)
    try:
        entries = list(workdir.rglob("*"))
        files = [p for p in entries if not p.is_dir() or p.is_symlink()]
        if any(not (p.name.startswith(ours) or p.name.endswith(".lock")) or p.is_symlink() for p in files):
            return  # something real was written: keep everything
        if any(p.stat().st_size and not p.name.startswith(ours) for p in files):
            return
        for p in files:
            p.unlink()
        for d in sorted((p for p in entries if p.is_dir()), key=lambda p: len(p.parts), reverse=True):
            d.rmdir()
        workdir.rmdir()
    except OSError:
        pass  # left as it is: never an error on top of the command's own


def prepare_stores(c: Campaign) -> None:
    """Everything ``tune`` checks before it writes: work directory, Optuna store, MLflow store."""
    prepare_workdir(c.workdir)
    check_no_links(c.workdir, "runs", "check", "dry-run")  # records that are links elsewhere: refused, not followed
    make_dirs(c.workdir / "runs" / check_study_name(c.study), under=c.workdir)
    marker = c.workdir / STARTED_NAME
    db = sqlite_path(c.storage)
    if db is not None:
        if db.exists() and db.stat().st_size == 0 and marker.exists() \
                and time.time() - marker.stat().st_mtime > FRESH_S:
            raise ConfigError(f"storage: {str(db)!r} is empty (0 bytes) but a campaign ran in this work directory "
                              f"before: its study was lost; restore the file from a backup, or delete it and "
                              f"{str(marker)!r} to start afresh")
        check_sqlite(db, "storage")
    if c.mlflow_uri is not None:
        ml = sqlite_path(c.mlflow_uri)
        if ml is not None:
            check_sqlite(ml, "tracking store")
    if not marker.exists():  # the first start in this work directory (its age tells a lost store from a new one)
        write_file(marker, f"{c.storage}\n")


def disk_full(exc: BaseException) -> bool:
    """True if ``exc`` (or what caused it) says the disk is full."""
    cur: BaseException | None = exc
    for _ in range(10):
        if cur is None:
            return False
        if isinstance(cur, OSError) and cur.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        if any(p in str(cur).lower() for p in _FULL):
            return True
        cur = cur.__cause__ or cur.__context__
    return False


class DiskReserve:
    """``RESERVE_BYTES`` of zeros in the work directory, given back to the disk when it fills."""

    def __init__(self, workdir: Path, size: int = RESERVE_BYTES) -> None:
        self.path = workdir / f"{RESERVE_NAME}-{os.getpid()}"  # one per process: workers may share a work directory
        self.size = size

    def take(self) -> None:
        try:
            write_file(self.path, b"\0" * self.size, sync=True)
        except OSError as exc:
            self.release()
            if exc.errno in (errno.ENOSPC, errno.EDQUOT):
                raise ConfigError(f"workdir: {str(self.path.parent)!r}: no space left on the device "
                                  f"(autotune needs at least {self.size >> 20} MiB free there)") from None
            raise

    def release(self) -> None:
        with contextlib.suppress(OSError):
            self.path.unlink()


def fail_running(study: optuna.Study, worker: str, reason: str) -> list[int]:
    """Fail this worker's RUNNING trials with ``reason``; they do not count and run again on resume."""
    failed = []
    for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        if trialrecord.read(t).worker not in (worker, ""):
            continue
        interrupt(study, t, reason, tell=False)
        failed.append(t.number)
    return failed


@contextlib.contextmanager
def stop_cleanly(c: Campaign, study: optuna.Study, worker: str, tracker: Any) -> Iterator[None]:
    """Run the loop with a disk reserve; a full disk ends it with nothing left RUNNING and one line."""
    reserve = DiskReserve(c.workdir)
    reserve.take()
    try:
        yield
    except Exception as exc:
        if not disk_full(exc):
            raise
        reserve.release()
        where = f"{str(c.workdir)!r}" if sqlite_path(c.storage) else "the work directory or the store"
        try:
            failed = fail_running(study, worker, "stopped: no space left on the device; runs again on resume")
        except Exception:  # noqa: BLE001 - still full: say so, the next start recovers the trial
            failed = []
        abort = getattr(tracker, "abort", None)
        if abort is not None:
            abort("no space left on the device")
        again = f"; trial {', '.join(map(str, failed))} runs again" if failed else ""
        raise AutotuneError(f"no space left on the device ({where}): the campaign stopped{again}; free some space "
                            "and run the same command to resume") from None
    finally:
        reserve.release()


def backfill_tracker(tracker: Any, rt: Any, study: optuna.Study) -> list[int]:
    """Log the finished trials a tracker that records them (``logged``) is missing, e.g. because its
    write failed on a full disk: Optuna is the source of truth, MLflow catches up on resume."""

    inner = getattr(tracker, "inner", tracker)
    logged = getattr(inner, "logged", None)
    if not isinstance(logged, set) or getattr(inner, "parent_id", None) is None:
        return []
    added = []
    for t in ran_trials(study):
        if t.number in logged:
            continue
        a = trialrecord.read(t)
        tracker.log_trial(TrackedTrial(
            number=t.number, state="COMPLETE" if t.state == TrialState.COMPLETE else "FAIL", config=rt.config_of(t),
            value=t.values[0] if t.values else None, repetitions=list(a.repetitions), metric=rt.campaign.objective.metric,
            is_default=a.is_default, hints=dict(a.hints), hints_in_effect=dict(a.hints_in_effect),
            hints_not_in_effect=dict(a.hints_not_in_effect), artifacts={"command.txt": f"{a.command}\n"}, error=a.error,
            duration=float(a.duration_s)))
        added.append(t.number)
    return added

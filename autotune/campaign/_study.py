"""The campaign's Optuna study: storage, creation, resume after a crash, budget accounting."""

from __future__ import annotations

import datetime
import os
import socket
import threading
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

import optuna
from optuna.trial import FrozenTrial, TrialState

from autotune._storage import HEARTBEAT_S, enqueue_retry, make_storage
from autotune.campaign._config import Campaign
from autotune.errors import ConfigError
from autotune.optimize import make_sampler
from autotune.space import BoundSpace

warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
UNCLAIMED_S = 10.0  # a live worker names itself on a trial within milliseconds of asking for it


def open_study(c: Campaign, space: BoundSpace, create: bool = True, fast: bool = False) -> optuna.Study:
    """Create or load the campaign's study; a study for another objective direction is refused
    (``fast``: see ``make_storage``)."""
    if c.storage.startswith("sqlite:///"):
        c.workdir.mkdir(parents=True, exist_ok=True)
    storage = make_storage(c.storage, fast=fast)
    sampler = make_sampler(c.sampler, space)
    if not create:
        try:
            return optuna.load_study(study_name=c.study, storage=storage, sampler=sampler)
        except KeyError:
            raise ConfigError(f"study {c.study!r} not found in {c.storage} (run `autotune tune` first)") from None
    try:
        study = optuna.create_study(study_name=c.study, storage=storage, sampler=sampler, direction=c.objective.direction,  # type: ignore[arg-type]
                                    load_if_exists=True)
    except ValueError as exc:
        raise ConfigError(f"study {c.study!r}: {exc}") from None
    if study.direction.name.lower() != c.objective.direction:
        raise ConfigError(f"study {c.study!r} in {c.storage} was made to {study.direction.name.lower()}, "
                          f"the campaign asks to {c.objective.direction}: use another --study")
    return study


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _stays_unclaimed(study: optuna.Study, t: FrozenTrial, now: datetime.datetime) -> bool:
    """True when a RUNNING trial without a worker is still unclaimed ``UNCLAIMED_S`` after it started."""
    started = t.datetime_start or now
    wait = UNCLAIMED_S - (now - started).total_seconds()
    if wait > 0:
        time.sleep(wait)
    fresh = study.get_trials(deepcopy=False)[t.number]
    return fresh.state == TrialState.RUNNING and not fresh.user_attrs.get("worker")


def recover_interrupted(study: optuna.Study) -> list[int]:
    """Fail the trials a killed campaign left RUNNING and enqueue their configurations again.

    A trial owned by a dead process on this host is failed at once; a trial of another host is failed
    by Optuna's heartbeat once its worker has been silent for the grace period.
    """
    host = socket.gethostname()
    failed: list[int] = []
    now = datetime.datetime.now()
    for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        if t.user_attrs.get("service"):
            continue  # a production job's trial: it expires at its own deadline (autotune/service)
        worker = str(t.user_attrs.get("worker", ""))
        whost, _, wpid = worker.rpartition(":")
        if worker and (whost != host or not wpid.isdigit() or _pid_alive(int(wpid))):
            continue
        if not worker and not _stays_unclaimed(study, t, now):
            continue  # just asked by another worker, which named itself a moment later
        # Optuna has no public call to annotate another worker's trial: the storage's, then the public tell
        study._storage.set_trial_user_attr(t._trial_id, "error", "interrupted: the campaign was killed")
        study._storage.set_trial_user_attr(t._trial_id, "ran", False)  # its retry is what the budget counts
        study._storage.set_trial_user_attr(t._trial_id, "interrupted", True)
        study.tell(t.number, state=TrialState.FAIL)
        enqueue_retry(study, t)
        failed.append(t.number)
    if isinstance(study._storage, optuna.storages.RDBStorage):
        optuna.storages.fail_stale_trials(study)
    return failed


def ran_trials(study: optuna.Study) -> list[FrozenTrial]:
    """Trials that were really run (complete or failed), i.e. what the budget counts."""
    return [t for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.FAIL))
            if t.user_attrs.get("ran")]


def best_trial(study: optuna.Study) -> FrozenTrial | None:
    """The best feasible completed trial, or None."""
    done = [t for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
            if t.user_attrs.get("ran") and t.value is not None]
    if not done:
        return None
    pick = max if study.direction == optuna.study.StudyDirection.MAXIMIZE else min
    return pick(done, key=lambda t: t.value)  # type: ignore[arg-type,return-value]


def default_trial(study: optuna.Study) -> FrozenTrial | None:
    for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
        if t.user_attrs.get("is_default") and t.user_attrs.get("ran"):
            return t
    return None


@contextmanager
def heartbeat(study: optuna.Study, trial: optuna.Trial) -> Iterator[None]:
    """Record heartbeats for ``trial`` while it runs (RDB storages only)."""
    storage = study._storage
    if not isinstance(storage, optuna.storages.RDBStorage):
        yield
        return
    stop = threading.Event()

    def beat() -> None:
        missed = 0
        while not stop.is_set():
            try:
                storage.record_heartbeat(trial._trial_id)
                missed = 0
            except Exception:  # noqa: BLE001 - a missed heartbeat is retried sooner
                missed += 1
            stop.wait(HEARTBEAT_S if not missed else 1.0)

    thread = threading.Thread(target=beat, daemon=True, name=f"heartbeat-{trial.number}")
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=5)

"""The campaign's Optuna study: storage, creation, resume after a crash, budget accounting."""

from __future__ import annotations

import datetime
import math
import os
import socket
import statistics
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import optuna
from optuna.trial import FrozenTrial, TrialState

from autotune import _killpoint, trialrecord
from autotune._storage import GRACE_S, HEARTBEAT_S, enqueue_retry, make_storage
from autotune.campaign.file import Campaign, CostObjective
from autotune.campaign.study._digest import best_ran, first_flagged, ran_median, rdb
from autotune.campaign.study._objectives import directions, is_multi, maximizes, recommended, value_of
from autotune.campaign.study._resume import in_space
from autotune.errors import ConfigError
from autotune.measure import MIN_TRIALS, implausible_given
from autotune.optimize import make_sampler, model_metric_of
from autotune.space import BoundSpace

warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
UNCLAIMED_S = 10.0  # a live worker names itself on a trial within milliseconds of asking for it


def open_study(c: Campaign, space: BoundSpace, create: bool = True, fast: bool = False) -> optuna.Study:
    """Create or load the campaign's study; a study for other objective directions is refused (``fast``: see
    ``make_storage``).

    With ``objective.cost`` the study has two objectives (metric, cost), and the cost rule is stored on it
    (user attribute ``cost``) so that every reader recommends the same trial."""
    if create and c.storage.startswith("sqlite:///"):
        c.workdir.mkdir(parents=True, exist_ok=True)
    storage = make_storage(c.storage, fast=fast, create=create)  # reading creates nothing
    wanted = directions(c)
    judged = model_metric_of(c, space)  # the model's name for the metric (None: the model cannot judge it)
    sampler = make_sampler(c.sampler, space, judged, c.objective.maximize, len(wanted))
    if not create:
        try:
            study = optuna.load_study(study_name=c.study, storage=storage, sampler=sampler)
        except KeyError:
            raise ConfigError(f"study {c.study!r} not found in {c.storage} (run `autotune tune` first)") from None
        _check_directions(c, study, wanted)
        return study
    try:
        study = optuna.create_study(study_name=c.study, storage=storage, sampler=sampler,
                                    directions=wanted, load_if_exists=True)  # type: ignore[arg-type]
    except ValueError as exc:
        raise ConfigError(f"study {c.study!r}: {exc}") from None
    _check_directions(c, study, wanted)
    history = len(study.get_trials(deepcopy=False))
    if history and c.sampler.get("seed") is not None:  # resumed: continue the seeded sequence, never replay it
        study.sampler = make_sampler(c.sampler, space, judged, c.objective.maximize, len(wanted), history)
    if c.objective.cost is not None and (stored := trialrecord.read_study(study).cost or {}) != c.objective.cost.rule():
        if stored and stored.get("exchange_rate") != c.objective.cost.exchange_rate and study.get_trials(deepcopy=False):
            raise ConfigError(f"study {c.study!r}: its costs were told at 1 BB node-hour = {stored['exchange_rate']:g} "
                              f"node-hours, the campaign says {c.objective.cost.exchange_rate:g}: use another --study "
                              "(a report recommends under any rate: autotune report --exchange-rate)")
        trialrecord.write_study(study, cost=c.objective.cost.rule())
    return study


def _check_directions(c: Campaign, study: optuna.Study, wanted: list[str]) -> None:
    have = [d.name.lower() for d in study.directions]
    if have == wanted:
        return
    what = {1: "one objective", 2: "two objectives (metric, cost)"}
    if len(have) != len(wanted):
        raise ConfigError(f"study {c.study!r} in {c.storage} has {what.get(len(have), have)}, the campaign "
                          f"{'sets' if c.objective.cost else 'has no'} objective.cost ({what.get(len(wanted))}): "
                          "use another --study")
    raise ConfigError(f"study {c.study!r} in {c.storage} was made to {have[0]}, "
                      f"the campaign asks to {c.objective.direction}: use another --study")


def pid_alive(pid: int) -> bool:
    """True when process ``pid`` exists on this host (also when it belongs to another user)."""
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
    return fresh.state == TrialState.RUNNING and not trialrecord.read(fresh).worker


def recover_interrupted(study: optuna.Study) -> list[int]:
    """Fail the trials a killed campaign left RUNNING and enqueue their configurations again (``interrupt``).

    A trial owned by a dead process on this host is failed at once; a trial of another host once its worker's
    heartbeat (``heartbeat``) is older than Optuna's grace period; a trial nobody claimed ``UNCLAIMED_S``
    after it started (asked by a campaign killed before it ran anything) too: its retry is then checked for a
    completed twin like any queued trial (``_resume.settle_unneeded``).
    """
    host = socket.gethostname()
    failed: list[int] = []
    now = datetime.datetime.now()
    db = rdb(study)  # Optuna wraps it in a cache: the heartbeats are the backend's
    stale = set(db._get_stale_trial_ids(study._study_id)) if db is not None and db.heartbeat_interval else set()
    for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        if trialrecord.read(t).service:
            continue  # a production job's trial: it expires at its own deadline (autotune/service)
        worker = trialrecord.read(t).worker
        whost, _, wpid = worker.rpartition(":")
        if worker and whost == host and wpid.isdigit():
            if pid_alive(int(wpid)):
                continue
            why = "interrupted: the campaign was killed"
        elif worker:
            if t._trial_id not in stale:
                continue  # another host's worker, still beating (``heartbeat``)
            why = f"interrupted: its worker {worker} stopped beating (no heartbeat for {GRACE_S} s)"
        elif _stays_unclaimed(study, t, now):
            why = "interrupted: the campaign was killed before it ran"
        else:
            continue  # just asked by another worker, which named itself a moment later
        interrupt(study, t, why)
        failed.append(t.number)
    return failed


def interrupt(study: optuna.Study, t: FrozenTrial, error: str, tell: bool = True) -> None:
    """Fail ``t`` as interrupted (it does not count) and queue its configuration to run again, in an order a kill
    cannot break: marked, its retry queued (once: ``enqueue_retry``), failed. Killed before the end, the trial
    stays RUNNING; the next recovery finishes the job and queues no second retry. ``tell=False``: fail it through
    the storage alone (a full disk: nothing else written)."""
    # Optuna has no public call to annotate another worker's trial: the storage's, then the public tell
    # (not ``ran``: its retry is what the budget counts)
    trialrecord.write_stored(study._storage, t._trial_id, error=error, ran=False, interrupted=True)
    _killpoint.reached("recover:marked")
    enqueue_retry(study, t)
    _killpoint.reached("recover:enqueued")
    if tell:
        study.tell(t.number, state=TrialState.FAIL, skip_if_finished=True)
    else:
        study._storage.set_trial_state_values(t._trial_id, TrialState.FAIL)
    _killpoint.reached("recover:failed")


def data_in_use(study: optuna.Study) -> set[int]:
    """The trial numbers whose data directories may still be written (asked after ``recover_interrupted``).

    A trial still RUNNING (a live worker's, a production job's) and an interrupted trial whose queued retry
    may adopt its still-running job (the launcher's ``recover``). Confirmation and re-measurement runs are no
    trials: their directories count as stale here (the loop adds the runs of a live worker's confirmation:
    ``confirm._claim.in_use``).
    """
    trials = study.get_trials(deepcopy=False, states=(TrialState.WAITING, TrialState.RUNNING))
    return ({t.number for t in trials if t.state == TrialState.RUNNING}
            | {r for t in trials if (r := trialrecord.read(t).retry_of) is not None})


def ran_trials(study: optuna.Study) -> list[FrozenTrial]:
    """Trials that were really run (complete or failed), i.e. what the budget counts."""
    return trialrecord.ran_trials(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.FAIL)))


def best_trial(study: optuna.Study, cost: CostObjective | None = None) -> FrozenTrial | None:
    """The best feasible completed trial whose value is plausible (``measure.implausible``) and that lies inside
    the space the study last ran with (``_resume.in_space``), or None; with two objectives the trial recommended
    under the cost rule (``cost``, else the study's own: ``campaign._objectives.recommended``)."""
    if is_multi(study):
        return recommended(study, cost)
    if rdb(study) is not None:  # bounded queries instead of reading every trial (campaign/study/_digest.py)
        return best_ran(study, maximizes(study), value_flag(study, ran_median(study, MIN_TRIALS)),
                        keep=lambda t: bool(in_space(study, [t])))[0]
    done = _done(study)
    flagged = implausible_trials(study, done)
    done = in_space(study, [t for t in done if t.number not in flagged])
    if not done:
        return None
    pick = max if maximizes(study) else min
    return pick(done, key=lambda t: float(value_of(t) or 0.0))


def _done(study: optuna.Study) -> list[FrozenTrial]:
    return [t for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
            if trialrecord.read(t).ran and value_of(t) is not None]


def value_flag(study: optuna.Study, median: float | None) -> Callable[[float], str | None]:
    """``measure.implausible_given`` with the study's metric kind, direction and the model's ceiling."""
    rec = trialrecord.read_study(study)
    kind, ceiling = rec.metric_kind, rec.plausible_max
    limit = float(ceiling) if isinstance(ceiling, (int, float)) and not isinstance(ceiling, bool) else None
    maximize = maximizes(study)
    return lambda v: implausible_given(v, kind if isinstance(kind, str) else None, maximize, median, limit)


def implausible_trials(study: optuna.Study, done: list[FrozenTrial] | None = None) -> dict[int, str]:
    """The completed trials better than the best plausible one whose value is not plausible
    (``measure.implausible``), with the reason: they are never the best trial. ``done``: the completed trials
    that ran (default: read from the study; on an RDB storage, bounded queries)."""
    if done is None and rdb(study) is not None:
        return best_ran(study, maximizes(study), value_flag(study, ran_median(study, MIN_TRIALS)))[1]
    done = _done(study) if done is None else done
    values = [float(value_of(t) or 0.0) for t in done]
    finite = [v for v in values if math.isfinite(v)]
    flag = value_flag(study, statistics.median(finite) if len(finite) >= MIN_TRIALS else None)
    out: dict[int, str] = {}
    for t, v in zip(done, values, strict=True):
        why = flag(v)
        if why is not None:
            out[t.number] = why
    return out


def default_trial(study: optuna.Study) -> FrozenTrial | None:
    """The first completed, really run trial of the default configuration, or None (a bounded query)."""
    return first_flagged(study, trialrecord.IS_DEFAULT)


RULES_AMONG = 16  # the rules of thumb are queued right after the default: among the study's first trials


def rule_trials(study: optuna.Study) -> list[FrozenTrial]:
    """The completed, really run trials of rules of thumb (bounded: the first ``RULES_AMONG`` trial numbers)."""
    storage, out = study._storage, []
    for n in range(RULES_AMONG):
        try:
            t = storage.get_trial(storage.get_trial_id_from_study_id_trial_number(study._study_id, n))
        except KeyError:
            break
        rec = trialrecord.read(t)
        if rec.rule_of_thumb and rec.ran and t.state == TrialState.COMPLETE and t.values:
            out.append(t)
    return out


@contextmanager
def heartbeat(study: optuna.Study, trial: optuna.Trial) -> Iterator[None]:
    """Record heartbeats for ``trial`` while it runs (RDB storages only: the backend of Optuna's cache)."""
    storage = rdb(study)
    if storage is None:
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

"""The service commands' work, bounded in time: ask (with fallback), tell (with spool), hints (never fails)."""

from __future__ import annotations

import contextlib
import os
import random
import sys
from typing import Any, TextIO

import optuna

from autotune import trialrecord
from autotune._storelock import sqlite_path, store_lock
from autotune.campaign import make_storage, open_study
from autotune.errors import AutotuneError, ConfigError
from autotune.service._asktell import Assignment, ask, tell
from autotune.service._bestrecord import known_best
from autotune.service._fallback import StoreUnavailable, bounded, recall, remember
from autotune.service._hints import KnownConfig, best_known
from autotune.service._policy import Policy
from autotune.service._spool import pending, spool


def _open(rt: Any, create: bool) -> optuna.Study:
    c = rt.campaign
    if c.objective.cost is not None:
        raise ConfigError("objective.cost: the service tells one value per production job, not a cost; tune a "
                          "two-objective campaign with `autotune tune` and export its recommendation")
    if not create:  # tell: reading an existing study creates nothing
        return open_study(c, rt.space, create=False, fast=True)
    if c.storage.startswith("sqlite:///"):
        c.workdir.mkdir(parents=True, exist_ok=True)
    try:
        study = open_study(c, rt.space, create=False, fast=True)  # the usual case: set up already, no lock taken
        if not trialrecord.study_changes(study, **rt.info()):  # one query (the property reads the store each time)
            return study
    except ConfigError as exc:  # no store, no tables yet (another job is creating them) or no study: set up below
        if "not found" not in str(exc) and "no study tables found" not in str(exc):
            raise
    with store_lock(c.storage, "study-setup"):
        study = open_study(c, rt.space)
        trialrecord.write_study(study, **rt.info())
    return study


def deliver_spool(study: optuna.Study, storage: str) -> int:
    """Deliver the tells this machine could not deliver earlier; returns how many were recorded."""
    done = 0
    for path, t in pending(storage, study.study_name, lambda w: print(f"autotune: warning: {w}", file=sys.stderr)):
        mine = path.with_suffix(f".delivering-{os.getpid()}")
        try:
            path.rename(mine)  # claimed: another process delivering the spool at the same time skips it
        except OSError:
            continue
        try:
            tell(study, t["ref"], value=t.get("value"), failure=t.get("failure"), extra=t.get("extra"))
            done += 1
        except (ConfigError, optuna.exceptions.UpdateFinishedTrialError):
            pass  # expired or already told meanwhile: nothing left to deliver
        except Exception:
            mine.rename(path)  # the store failed again: deliver it next time
            raise
        mine.unlink(missing_ok=True)
    return done


def do_ask(rt: Any, policy: Policy, *, job_id: str, expire_s: float, timeout: float, seed: int | None,
           err: TextIO = sys.stderr) -> Assignment:
    """The job's configuration; when the store is unreachable or slow, the last known best (or the default)."""
    c = rt.campaign

    def work() -> Assignment:
        study = _open(rt, create=True)
        deliver_spool(study, c.storage)
        best = known_best(study)
        a = ask(rt, study, policy, job_id=job_id, expire_s=expire_s, rng=random.Random(seed), best=best)
        if best is not None and rt.space.refusal(rt.config_of(best)) is None:
            remember(c.storage, c.study, rt.config_of(best))
        return a

    try:
        return bounded(work, timeout)
    except StoreUnavailable as exc:
        cached = recall(c.storage, c.study, lambda w: print(f"autotune ask: warning: {w}", file=err))
        why = rt.space.refusal(cached) if cached is not None else None
        if why is not None:  # checked like a user's input: a cache is no more trusted than a command line
            print(f"autotune ask: warning: the cached configuration is not one of this space ({why})", file=err)
        elif cached is not None:
            print(f"autotune ask: {exc}: running the last known best configuration (not a trial)", file=err)
            return Assignment(c.study, cached, "fallback-cache", note=str(exc))
        print(f"autotune ask: {exc}: running the default configuration (not a trial)", file=err)
        return Assignment(c.study, rt.space.default_config(), "fallback-default", is_default=True, note=str(exc))


def do_tell(rt: Any, ref: str, *, value: float | None, failure: str | None, extra: dict[str, Any],
            timeout: float, err: TextIO = sys.stderr) -> str:
    """Record the job's result; an unreachable store spools it for the next ask/tell. Returns a status line."""
    c = rt.campaign

    def work() -> str:
        study = _open(rt, create=False)
        deliver_spool(study, c.storage)
        t = tell(study, ref, value=value, failure=failure, extra=extra)
        return f"told trial {t.number} of study {c.study}: {t.state.name}" + (f" {t.values[0]:.6g}" if t.values else "")

    try:
        return bounded(work, timeout)
    except StoreUnavailable as exc:
        where = spool(c.storage, c.study, {"ref": ref, "value": value, "failure": failure, "extra": extra})
        if where is None:
            print(f"autotune tell: {exc}; the result could not be kept either: the trial will expire", file=err)
            return "not recorded"
        print(f"autotune tell: {exc}; kept in {where}, delivered by the next ask or tell", file=err)
        return "spooled"


def do_hints(rt: Any, timeout: float) -> KnownConfig | None:
    """The best known configuration for the campaign's app on its system (see ``best_known``)."""
    c = rt.campaign

    def work() -> KnownConfig | None:
        db = sqlite_path(c.storage)
        if db is not None and not db.is_file():
            return None  # nothing recorded yet (and no empty database left behind)
        storage = make_storage(c.storage, fast=True)  # set up already: no schema check (a quarter second of CPU)
        return best_known(storage, c.study, c.app.name, c.system.name, c.app.pattern.as_dict(), c.space.name,
                          lambda t: _feasible(rt, t))

    return bounded(work, timeout)


def _feasible(rt: Any, trial: Any) -> bool:
    with contextlib.suppress(AutotuneError, KeyError, ValueError):
        return bool(rt.space.feasible(rt.config_of(trial)))
    return False

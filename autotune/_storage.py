"""Optuna storages by URL (a bottom module: the campaign, warm start and reports all open storages)."""

from __future__ import annotations

from typing import Any

import optuna
from optuna.trial import FrozenTrial

from autotune.errors import ConfigError

HEARTBEAT_S = 30
GRACE_S = 120


def make_storage(url: str, workdir_exists: bool = True) -> optuna.storages.BaseStorage:
    """``:memory:`` or an RDB URL (SQLite, PostgreSQL) with heartbeats so a dead worker's trial is failed."""
    if url in (":memory:", "memory"):
        return optuna.storages.InMemoryStorage()
    kwargs: dict[str, Any] = {}
    if url.startswith("sqlite"):
        kwargs = {"connect_args": {"timeout": 60}}
    try:
        return optuna.storages.RDBStorage(url, engine_kwargs=kwargs, heartbeat_interval=HEARTBEAT_S,
                                          grace_period=GRACE_S, heartbeat_stale_trial_callback=_retry_failed)
    except Exception as exc:  # noqa: BLE001 - any driver error is a one-line message
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ConfigError(f"storage: cannot open {url!r}: {first}") from None


def _retry_failed(study: optuna.Study, trial: FrozenTrial) -> None:
    """Optuna's stale-trial callback: the configuration of a trial whose worker died is run again."""
    enqueue_retry(study, trial)


def enqueue_retry(study: optuna.Study, trial: FrozenTrial) -> None:
    study.enqueue_trial(trial.params, user_attrs={"retry_of": trial.number,
                                                   "is_default": bool(trial.user_attrs.get("is_default", False))})

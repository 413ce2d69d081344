"""Optuna storages by URL (a bottom module: the campaign, warm start and reports all open storages)."""

from __future__ import annotations

import contextlib
import re
import socket
import threading
import time
from pathlib import Path
from typing import Any

import optuna
from optuna.storages._rdb import storage as rdb_storage
from optuna.trial import FrozenTrial, TrialState

from autotune import _storelock, trialrecord
from autotune._storelock import engine_kwargs, sqlite_path, store_lock
from autotune.errors import ConfigError, StoreUnreachable

HEARTBEAT_S = 30
GRACE_S = 120


def make_storage(url: str, workdir_exists: bool = True, fast: bool = False,
                 create: bool = True) -> optuna.storages.BaseStorage:
    """``:memory:`` or an RDB URL (SQLite, PostgreSQL) with heartbeats so a dead worker's trial is failed.

    Schema creation is serialised across processes (``store_lock``): workers starting at once on a fresh
    database would otherwise race on Optuna's tables and alembic stamp. ``fast`` (production jobs' ``ask``
    and ``tell``): first try the store as already set up, with neither table creation nor Optuna's schema
    version check (which parses every alembic migration script: a quarter of a second of CPU per process)
    and no separate probe connection; a store not set up yet takes the usual path. ``create=False`` (commands
    that only read): a store that does not exist or holds no Optuna tables is a ConfigError, and nothing is
    created (no database file, no lock file). Every wait on the store is bounded (``engine_kwargs``).
    """
    if url in (":memory:", "memory"):
        return optuna.storages.InMemoryStorage()
    if url.startswith("grpc://"):
        return _grpc_proxy(url)
    if url.startswith("grpc+unix://"):
        return _grpc_unix_proxy(url)
    kwargs: dict[str, Any] = engine_kwargs(url)
    if not create:
        _check_exists(url)
    if fast:
        with contextlib.suppress(Exception):  # no tables yet (or no server: the usual path says so)
            return _set_up_already(url, kwargs)
    try:
        with store_lock(url, "optuna-schema") if not _schema_ready(url) else contextlib.nullcontext():
            for _ in range(2):
                try:
                    return _full(url, kwargs)
                except Exception:  # noqa: BLE001 - see below; the last attempt's error is reported
                    # Optuna creates and stamps a fresh store's version tables in every RDBStorage
                    # constructor, so another process's lock-free ``fast`` attempt can collide with ours
                    # (a duplicate key, "table alembic_version already exists"); the collision is over
                    # in milliseconds and the set-up is idempotent: try again
                    time.sleep(0.5)
            return _full(url, kwargs)
    except ConfigError:
        raise
    except Exception as exc:  # noqa: BLE001 - any driver error is a one-line message
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise StoreUnreachable(f"storage: cannot open {url!r}: {first}") from None


_PATCH = threading.Lock()


class _DeferredVersionManager:
    """Stands in for Optuna's schema version manager until something asks it (``upgrade``, version queries):
    its constructor imports alembic and queries the version tables (about 0.3 s of CPU per process), which a
    store known to be set up does not need."""

    def __init__(self, url: str, engine: Any, scoped_session: Any) -> None:
        self._args = (url, engine, scoped_session)
        self._real: Any = None

    def __getattr__(self, name: str) -> Any:
        if self._real is None:
            self._real = rdb_storage._VersionManager(*self._args)  # the real one, and its set-up, on first use
        return getattr(self._real, name)


def _set_up_already(url: str, kwargs: dict[str, Any]) -> optuna.storages.RDBStorage:
    """An RDBStorage on a store whose schema is set up: no table creation, no version check, no alembic
    import; one query (the alembic stamp) proves the tables are there, on the connection the storage keeps
    in its pool. Raises when they are not (the caller then takes the usual path)."""
    from sqlalchemy import text  # lazy: `autotune ask` over gRPC needs no SQLAlchemy

    with _PATCH:  # Optuna's constructor builds its version manager by module name: swapped for this call only
        real, rdb_storage._VersionManager = rdb_storage._VersionManager, _DeferredVersionManager  # type: ignore[misc,assignment]
        try:
            storage = optuna.storages.RDBStorage(url, engine_kwargs=kwargs, heartbeat_interval=HEARTBEAT_S,
                                                 grace_period=GRACE_S, heartbeat_stale_trial_callback=_retry_failed,
                                                 skip_compatibility_check=True, skip_table_creation=True)
        finally:
            rdb_storage._VersionManager = real  # type: ignore[misc]
    try:
        with storage.engine.connect() as conn:
            if conn.execute(text("SELECT version_num FROM alembic_version")).first() is None:
                raise LookupError("the store's schema is not stamped")
    except Exception:
        storage.engine.dispose()
        raise
    return storage


def _check_exists(url: str) -> None:
    """For commands that only read: the store must exist and hold Optuna's tables (nothing is created)."""
    db = sqlite_path(url)
    if db is not None and not db.is_file():
        raise ConfigError(f"storage: {str(db)!r} not found (run `autotune tune` first, or give --storage/--workdir)")
    if db is not None and not _schema_ready(url):
        raise ConfigError(f"storage: no study tables found in {str(db)!r} (not an Optuna database)")


def _full(url: str, kwargs: dict[str, Any]) -> optuna.storages.RDBStorage:
    return optuna.storages.RDBStorage(url, engine_kwargs=kwargs, heartbeat_interval=HEARTBEAT_S,
                                      grace_period=GRACE_S, heartbeat_stale_trial_callback=_retry_failed)


def _schema_ready(url: str) -> bool:
    """True when Optuna's schema is already stamped: then no lock is needed (a fresh store takes one)."""
    from sqlalchemy import create_engine, text  # lazy: `autotune ask` over gRPC needs no SQLAlchemy
    from sqlalchemy.pool import NullPool  # lazy: `autotune ask` over gRPC needs no SQLAlchemy

    try:
        engine = create_engine(url, poolclass=NullPool, **engine_kwargs(url))
    except Exception:  # noqa: BLE001 - a URL SQLAlchemy cannot use: the usual path reports it
        return False
    try:
        try:
            conn = engine.connect()
        except Exception as exc:  # noqa: BLE001 - no server, or one that never answers: said once, not waited for twice
            if url.startswith("sqlite"):
                return False  # a missing directory or file: the usual path reports it
            raise StoreUnreachable(f"storage: cannot open {url!r}: {_first_line(exc)}") from None
        with conn:
            return conn.execute(text("SELECT version_num FROM alembic_version")).first() is not None
    except StoreUnreachable:
        raise
    except Exception as exc:  # noqa: BLE001 - no table yet, or a store another process keeps locked
        if "database is locked" in str(exc):
            raise _storelock.busy(f"storage {url!r}") from None
        return False
    finally:
        engine.dispose()


def _grpc_proxy(url: str) -> optuna.storages.BaseStorage:
    """``grpc://HOST:PORT``: Optuna's gRPC storage proxy (``autotune store serve``), for compute nodes
    that may not reach the database itself."""
    m = re.fullmatch(r"grpc://([A-Za-z0-9.\-]+|\[[0-9a-fA-F:]+\]):(\d{1,5})/?", url)
    if not m or not 0 < int(m[2]) < 65536:
        raise ConfigError(f"storage: {url!r} is not grpc://HOST:PORT")
    host, port = m[1].strip("[]"), int(m[2])
    try:  # a stopped proxy refuses at once: said at once, not after the readiness wait
        socket.create_connection((host, port), timeout=_storelock.CONNECT_S).close()
    except OSError as exc:
        raise StoreUnreachable(f"storage: no gRPC storage proxy at {url} ({exc.strerror or exc}; is "
                               "`autotune store serve` running there?)") from None
    try:
        proxy = optuna.storages.GrpcStorageProxy(host=host, port=port)
        proxy.wait_server_ready(timeout=_storelock.CONNECT_S)
    except ConnectionError:
        raise StoreUnreachable(f"storage: no gRPC storage proxy answers at {url} within {_storelock.CONNECT_S} s "
                               "(is `autotune store serve` running there?)") from None
    except Exception as exc:  # noqa: BLE001 - any driver error is a one-line message
        raise StoreUnreachable(f"storage: cannot open {url!r}: {_first_line(exc)}") from None
    return proxy


SOCKET_SUFFIX = ":0"  # Optuna addresses its proxy as f"{host}:{port}"; with host "unix:PATH" that is the socket's name


def grpc_unix_url(path: Path) -> str:
    """The ``--storage`` URL of a proxy served on the Unix socket ``path`` (``autotune store serve``)."""
    return f"grpc+unix://{path}"


def _grpc_unix_proxy(url: str) -> optuna.storages.BaseStorage:
    """``grpc+unix:///PATH``: the proxy on a Unix socket of this machine; who may connect is the socket's
    directory's business (unix(7)). A socket that refuses (no server, no permission) is said at once."""
    path = url[len("grpc+unix://"):]
    if not path.startswith("/") or not path.endswith(SOCKET_SUFFIX):
        raise ConfigError(f"storage: {url!r} is not grpc+unix:///PATH{SOCKET_SUFFIX} as `autotune store serve` prints it")
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(_storelock.CONNECT_S)
            s.connect(path)
    except OSError as exc:
        raise StoreUnreachable(f"storage: no gRPC storage proxy at {url} ({exc.strerror or exc}; is `autotune store "
                               "serve` running, and may you enter its socket's directory?)") from None
    try:
        proxy = optuna.storages.GrpcStorageProxy(host=f"unix:{path[:-len(SOCKET_SUFFIX)]}", port=0)
        proxy.wait_server_ready(timeout=_storelock.CONNECT_S)
    except ConnectionError:
        raise StoreUnreachable(f"storage: no gRPC storage proxy answers at {url} within {_storelock.CONNECT_S} s") \
            from None
    except Exception as exc:  # noqa: BLE001 - any driver error is a one-line message
        raise StoreUnreachable(f"storage: cannot open {url!r}: {_first_line(exc)}") from None
    return proxy


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _retry_failed(study: optuna.Study, trial: FrozenTrial) -> None:
    """Optuna's stale-trial callback: the configuration of a trial whose worker died is run again."""
    enqueue_retry(study, trial)


def enqueue_retry(study: optuna.Study, trial: FrozenTrial) -> None:
    """Queue ``trial``'s configuration to run again, with its role (default, baseline, initial, rule of thumb), once:
    nothing is queued when a trial already retries it (a recovery killed half-way and done again); then the
    retries go first in the queue (``retries_first``)."""
    if not any(trialrecord.read(t).retry_of == trial.number for t in study.get_trials(deepcopy=False)):
        study.enqueue_trial(trial.params, user_attrs=trialrecord.attrs(retry_of=trial.number, **_roles(trial)))
    retries_first(study)


def _roles(trial: FrozenTrial) -> dict[str, Any]:
    """Why ``trial`` was queued (the default, the app's baseline, the model's start, a rule of thumb, the
    replacement of a repeat), to carry over to a trial queued in its place."""
    rec = trialrecord.read(trial)
    roles: dict[str, Any] = {k: True for k in ("is_default", "baseline", "initial") if getattr(rec, k)}
    if rec.rule_of_thumb:
        roles["rule_of_thumb"] = rec.rule_of_thumb
    if rec.replaces is not None:
        roles["replaces"] = rec.replaces
    return roles


def retries_first(study: optuna.Study) -> None:
    """Put the queued retries of interrupted trials ahead of the other queued trials: the run that was in flight
    when the campaign stopped (the default's, say) goes on first, not after the start queued behind it.

    Optuna hands out queued trials lowest number first and cannot reorder them: each queued trial that is no
    retry and stands before the last retry is claimed (as Optuna pops it: one another worker took is left
    alone), queued again (its values and role), then failed (never run, not counted). A kill in between leaves
    an unclaimed trial, recovered like any other, or a twin in the queue, which the loop replaces by an untried
    configuration (never a second run of one configuration)."""
    waiting = sorted(study.get_trials(deepcopy=False, states=(TrialState.WAITING,)), key=lambda t: t.number)
    last = max((t.number for t in waiting if trialrecord.read(t).retry_of is not None), default=None)
    if last is None:
        return
    for t in waiting:
        if t.number > last or trialrecord.read(t).retry_of is not None:
            continue
        # claimed first, as Optuna pops a queued trial (atomically: False when another worker took it meanwhile)
        if not study._storage.set_trial_state_values(t._trial_id, TrialState.RUNNING):
            continue
        fixed = t.system_attrs.get("fixed_params")
        study.enqueue_trial(dict(fixed) if isinstance(fixed, dict) else {}, user_attrs=trialrecord.attrs(**_roles(t)))
        trialrecord.write_stored(study._storage, t._trial_id, error="queued again behind a retry (never run)")
        study._storage.set_trial_state_values(t._trial_id, TrialState.FAIL)

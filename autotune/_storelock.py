"""One process at a time through a store's set-up: schema creation, study set-up, MLflow's first start.

Optuna's RDB storage and MLflow's SQLAlchemy store create their tables and alembic stamp from whichever
process gets there first; several workers starting at once on a fresh database race on it
("duplicate key value violates unique constraint pg_type_typname_nsp_index", "duplicate column name",
"UNIQUE constraint failed: alembic_version"). Optuna's maintainers leave this to the caller (optuna#1092).
We serialise instead of retrying: a retry must recognise every driver's wording of every half-done
migration, a lock does not care what the race would have broken.

- PostgreSQL: a session-level advisory lock (``pg_try_advisory_lock``), scoped to that database and
  released by the server if the holder dies (kill -9 included).
- SQLite: ``flock`` on ``<database file>.<name>.lock`` beside the database; the kernel releases it when
  the holder dies.
- Anything else (an MLflow server over HTTP, ``:memory:``, file stores): no lock is needed or possible.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from autotune._safefile import open_lock
from autotune.errors import ConfigError, StoreUnreachable

WAIT_S = 180.0  # set-up takes seconds; a holder stuck longer than this is reported, not waited for
_POLL_S = 0.05
CONNECT_S = 10  # a database server or gRPC proxy that has not answered a new connection by then is down
SQLITE_BUSY_S = 60.0  # SQLite waits this long for another process's write transaction, then says "locked"


def busy(what: str) -> StoreUnreachable:
    """The one line for an SQLite store another process keeps locked: busy, not broken (never "restore it")."""
    return StoreUnreachable(f"{what}: busy: another process has held a write transaction on it for over "
                            f"{SQLITE_BUSY_S:g} s (a running campaign or a stuck process; `fuser FILE` names it): "
                            "try again when it is done, the store itself is fine")


def engine_kwargs(url: str) -> dict[str, Any]:
    """SQLAlchemy ``create_engine`` arguments that bound every wait on the store: SQLite's busy timeout, and
    libpq's ``connect_timeout`` (the whole connection set-up, PostgreSQL documentation 34.1.2) so a server
    that accepts connections but never answers is reported instead of waited for."""
    scheme = url.split(":", 1)[0].lower()
    if scheme.startswith("sqlite"):
        return {"connect_args": {"timeout": SQLITE_BUSY_S}}
    if scheme in ("postgres", "postgresql", "postgresql+psycopg2", "postgresql+psycopg"):
        return {"connect_args": {"connect_timeout": CONNECT_S}}
    return {}


def advisory_key(name: str) -> int:
    """A stable signed 64-bit key for ``name`` (PostgreSQL advisory locks take a bigint)."""
    return int.from_bytes(hashlib.sha256(f"autotune:{name}".encode()).digest()[:8], "big", signed=True)


def sqlite_path(url: str) -> Path | None:
    """The database file of a ``sqlite:///`` URL, or None (``:memory:``, other schemes)."""
    if not url.startswith("sqlite:"):
        return None
    from sqlalchemy.engine import make_url  # lazy: `autotune ask` over gRPC needs no SQLAlchemy

    db = make_url(url).database
    if not db or db == ":memory:" or db.startswith("file:"):
        return None
    return Path(db)


@contextlib.contextmanager
def store_lock(url: str, name: str, wait: float = WAIT_S) -> Iterator[None]:
    """Hold the ``name`` set-up lock of the store at ``url`` for the ``with`` block (see the module doc)."""
    if url.startswith(("postgresql", "postgres")):
        with _pg_lock(url, name, wait):
            yield
        return
    path = sqlite_path(url)
    if path is None or not path.parent.is_dir():
        yield  # nothing to serialise (or the store itself will report the missing directory)
        return
    with _file_lock(path.with_name(f"{path.name}.{name}.lock"), url, wait):
        yield


@contextlib.contextmanager
def _file_lock(lock: Path, url: str, wait: float) -> Iterator[None]:
    try:
        fd = open_lock(lock)
    except OSError as exc:
        raise ConfigError(f"storage: cannot create the set-up lock {str(lock)!r} of {url!r}: {exc.strerror}") from None
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise ConfigError(f"storage: {url!r} has been set up by another process for over {wait:.0f} s "
                                      f"(lock {str(lock)!r}); is a worker hung?") from None
                time.sleep(_POLL_S)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


@contextlib.contextmanager
def _pg_lock(url: str, name: str, wait: float) -> Iterator[None]:
    from sqlalchemy import create_engine, text  # lazy: `autotune ask` over gRPC needs no SQLAlchemy
    from sqlalchemy.pool import NullPool  # lazy: `autotune ask` over gRPC needs no SQLAlchemy

    key = advisory_key(name)
    try:
        engine = create_engine(url, poolclass=NullPool, **engine_kwargs(url))
        conn = engine.connect()
    except Exception as exc:  # noqa: BLE001 - any driver error is a one-line message
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise StoreUnreachable(f"storage: cannot open {url!r}: {first}") from None
    try:
        deadline = time.monotonic() + wait
        while not conn.execute(text("SELECT pg_try_advisory_lock(:k)"), {"k": key}).scalar():
            conn.rollback()
            if time.monotonic() > deadline:
                raise ConfigError(f"storage: {url!r} has been set up by another process for over {wait:.0f} s "
                                  f"(advisory lock {name!r}); is a worker hung?")
            time.sleep(_POLL_S)
        conn.commit()
        try:
            yield
        finally:
            with contextlib.suppress(Exception):
                conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": key})
                conn.commit()
    finally:
        conn.close()
        engine.dispose()

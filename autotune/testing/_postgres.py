"""A fresh PostgreSQL database per test or benchmark round, dropped afterwards (even with clients left)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator

from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool


@contextlib.contextmanager
def fresh_postgres_database(server: str, name: str) -> Iterator[str]:
    """Create database ``name`` on ``server`` (``postgresql://user@host:port``); yield its URL; drop it."""
    if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", name):
        raise ValueError(f"database name {name!r}: lower-case letters, digits and _ only")
    admin = create_engine(f"{server.rstrip('/')}/postgres", poolclass=NullPool, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        yield f"{server.rstrip('/')}/{name}"
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()

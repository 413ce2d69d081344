"""Turning environment failures into one line, ``hints``' answer when it has none, and a stdout that survives
``autotune ... | head``.

A full or read-only disk, a corrupt SQLite file or an unsupported store URL is not a bug of
autotune: the user gets one line naming the file or URL and the cause (exit 2), never a traceback
or "internal error". Anything not recognised here stays an internal error (a bug to report).
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

# Phrases of SQLite/SQLAlchemy/MLflow errors that mean "the store is broken or unusable", with what to say.
_STORE_PROBLEMS = (
    ("database is locked", "the store is busy: another process has held a write transaction on it for "
                           "the whole wait (a running campaign or a stuck process; `fuser FILE` names it): "
                           "try again when it is done, the store itself is fine"),
    ("database or disk is full", "the disk is full"),
    ("disk i/o error", "disk I/O error (full or failing disk?)"),
    ("readonly database", "the store is read-only"),
    ("read-only file system", "the file system is read-only"),
    ("unable to open database file", "cannot open the database file (missing directory or no permission)"),
    ("file is not a database", "the file is not an SQLite database (corrupt or another file)"),
    ("database disk image is malformed", "the database is corrupt"),
    ("no such table", "the database has no autotune/Optuna/MLflow tables (another or a damaged file)"),
    ("unsupported uri", "unsupported URI"),
    ("could not connect", "cannot connect to the database server"),
    ("connection refused", "cannot connect to the database server"),
    ("statuscode.unavailable", "the gRPC storage proxy stopped answering (is `autotune store serve` running?)"),
    ("failed to connect to all addresses", "the gRPC storage proxy stopped answering (is `autotune store serve` running?)"),
)
_STORE_TYPES = ("_InactiveRpcError", "RpcError", "StorageInternalError", "OperationalError", "DatabaseError",
                "DBAPIError", "MlflowException",
                "UnsupportedModelRegistryStoreURIException", "ArgumentError", "NoSuchModuleError", "CommandError")


def describe(exc: BaseException) -> str | None:
    """One line for an environment failure (disk, permissions, corrupt or unreachable store), else None."""
    if isinstance(exc, OSError) and exc.errno is not None:
        name = str(exc.filename) if exc.filename else ""
        where = f"{name if len(name) <= 200 else name[:197] + '...'}: " if name else ""
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return f"{where}no space left on the device (free some space, then run the same command to resume)"
        if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            return f"{where}{os.strerror(exc.errno)} (choose a writable --workdir)"
        return f"{where}{exc.strerror or os.strerror(exc.errno)}"
    chain = _chain(exc)
    if not any(type(e).__name__ in _STORE_TYPES for e in chain):
        return None
    text = " ".join(str(e) for e in chain).lower()
    which = "tracking" if any(type(e).__name__.startswith("Mlflow") for e in chain) else "storage"
    for phrase, meaning in _STORE_PROBLEMS:
        if phrase in text:
            return f"{which}: {meaning} ({_first_line(chain[-1])})"
    return f"{which}: {type(chain[-1]).__name__}: {_first_line(chain[-1])}"


def _chain(exc: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    cur: BaseException | None = exc
    while cur is not None and cur not in out and len(out) < 10:
        out.append(cur)
        cur = cur.__cause__ or cur.__context__
    return out


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    line = text.splitlines()[0] if text else type(exc).__name__
    return line if len(line) <= 200 else line[:197] + "..."


class PipeSafe:
    """A stdout proxy: when the reader goes away (``| head``), further output goes to /dev/null quietly
    and the command carries on (a campaign is not cut short because its output was not read)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.broken = False

    def _divert(self) -> None:
        self.broken = True
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())
            os.close(devnull)
        except (OSError, ValueError):
            pass

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._divert()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._divert()
            try:
                self._stream.flush()
            except (BrokenPipeError, OSError, ValueError):
                pass

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


DEFAULTS = "# defaults: nothing to set"  # what `hints` prints when it cannot answer: a comment, safe to eval


def hints_defaults(why: str) -> int:
    """``hints`` could not answer: the reason on stderr (one line), the defaults on stdout, exit 0."""
    line = " ".join(why.split())
    print(f"autotune hints: {line if len(line) <= 300 else line[:297] + '...'}: keeping the defaults", file=sys.stderr)
    print(DEFAULTS)
    return 0


@contextmanager
def guard_stdout() -> Iterator[PipeSafe]:
    """``sys.stdout`` as a ``PipeSafe`` for the block; flushed (quietly) and restored after it."""
    before = sys.stdout
    safe = before if isinstance(before, PipeSafe) else PipeSafe(before)
    sys.stdout = safe  # type: ignore[assignment]
    try:
        yield safe
    finally:
        safe.flush()
        sys.stdout = before

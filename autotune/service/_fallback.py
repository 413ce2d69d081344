"""A job never waits on the store: bounded calls, and the last known best kept on local disk."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from autotune._safefile import make_dirs, replace_file
from autotune.errors import AutotuneError, ConfigError, StoreUnreachable

T = TypeVar("T")


class StoreUnavailable(Exception):
    """The store did not answer in time or failed; the job runs with a fallback configuration."""


def bounded(fn: Callable[[], T], timeout: float) -> T:
    """``fn()`` in a daemon thread; its result, or ``StoreUnavailable`` after ``timeout`` seconds or on an
    error of the store. A hung connection is abandoned (the process exits without waiting for it)."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            box["error"] = exc

    th = threading.Thread(target=target, daemon=True, name="autotune-store")
    th.start()
    th.join(timeout)
    if th.is_alive():
        raise StoreUnavailable(f"the store did not answer within {timeout:g} s")
    if "error" in box:
        exc = box["error"]
        if isinstance(exc, AutotuneError) and not isinstance(exc, StoreUnreachable):
            raise exc  # bad input stays bad input
        details = getattr(exc, "details", None)  # a gRPC error: its own one-line description, not its repr
        said = details() if callable(details) else None
        first = str(said) if said else (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise StoreUnavailable(first)
    return box["value"]  # type: ignore[no-any-return]


def cache_path(storage: str, study: str) -> Path:
    """Where the last known best configuration of ``study`` in ``storage`` is kept on this machine."""
    key = hashlib.sha256(f"{storage}\n{study}".encode()).hexdigest()[:24]
    return cache_root() / "service" / f"{key}.json"


def cache_root() -> Path:
    return Path(os.environ.get("AUTOTUNE_CACHE_DIR") or Path.home() / ".cache" / "autotune")


def private_dir(path: Path) -> Path:
    """``path`` (under the cache root) made as needed with mode 0700 whatever the umask, links refused."""
    root = cache_root()
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    return make_dirs(path, under=root, mode=0o700)


def untrusted(path: Path) -> str | None:
    """Why the cached or spooled file ``path`` must not be used (another user could have written it), or None:
    it must be a regular file of ours, not writable by others, in a directory of ours not writable by others."""
    me = os.geteuid()
    for p, what in ((path.parent, "its directory"), (path, "it")):
        try:
            st = os.lstat(p)
        except OSError as exc:
            return f"{what}: {exc.strerror}"
        if stat.S_ISLNK(st.st_mode) or not (stat.S_ISDIR(st.st_mode) if p == path.parent else stat.S_ISREG(st.st_mode)):
            return f"{what} is not a plain {'directory' if p == path.parent else 'file'}"
        if st.st_uid != me:
            return f"{what} belongs to uid {st.st_uid}, not to you"
        if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            return f"{what} is writable by others (mode {stat.S_IMODE(st.st_mode):04o})"
    return None


def remember(storage: str, study: str, config: dict[str, Any]) -> None:
    """Keep ``config`` as the last known best (atomically, mode 0600 in a 0700 directory; a cache that
    cannot be written is skipped)."""
    path = cache_path(storage, study)
    try:
        private_dir(path.parent)
        replace_file(path, json.dumps({"study": study, "config": config}), mode=0o600)
    except (OSError, ConfigError):
        pass


def recall(storage: str, study: str, warn: Callable[[str], None]) -> dict[str, Any] | None:
    """The last known best configuration as it was kept, or None (no cache; a damaged or untrusted one,
    said through ``warn``). What it holds is the caller's to check against the space."""
    path = cache_path(storage, study)
    if not path.exists() and not path.is_symlink():
        return None
    why = untrusted(path)
    if why is not None:
        warn(f"the cached configuration {str(path)!r} is ignored: {why}")
        return None
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        warn(f"the cached configuration {str(path)!r} is ignored: {exc}")
        return None
    config = data.get("config") if isinstance(data, dict) else None
    if not isinstance(config, dict):
        warn(f"the cached configuration {str(path)!r} is ignored: it holds no configuration")
        return None
    return config

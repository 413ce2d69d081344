"""A job never waits on the store: bounded calls, and the last known best kept on local disk."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

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
        from autotune.errors import AutotuneError, StoreUnreachable

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
    root = Path(os.environ.get("AUTOTUNE_CACHE_DIR") or Path.home() / ".cache" / "autotune")
    key = hashlib.sha256(f"{storage}\n{study}".encode()).hexdigest()[:24]
    return root / "service" / f"{key}.json"


def remember(storage: str, study: str, config: dict[str, Any]) -> None:
    """Keep ``config`` as the last known best (atomically; a cache that cannot be written is skipped)."""
    path = cache_path(storage, study)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"study": study, "config": config}))
        os.replace(tmp, path)
    except OSError:
        pass


def recall(storage: str, study: str) -> dict[str, Any] | None:
    """The last known best configuration, or None (no cache, or a damaged one)."""
    try:
        data = json.loads(cache_path(storage, study).read_text())
    except (OSError, ValueError):
        return None
    config = data.get("config") if isinstance(data, dict) else None
    return config if isinstance(config, dict) else None

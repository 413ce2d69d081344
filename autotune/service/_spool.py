"""Tells that could not reach the store wait on local disk and are delivered by the next ask or tell."""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from autotune.errors import ConfigError
from autotune.service._fallback import cache_path, private_dir, untrusted


def spool_dir(storage: str, study: str) -> Path:
    cache = cache_path(storage, study)
    return cache.parent / "spool" / cache.stem


def spool(storage: str, study: str, tell: dict[str, Any]) -> Path | None:
    """Keep one undelivered tell (private to the user: it holds the trial's token); None if it cannot."""
    d = spool_dir(storage, study)
    try:
        private_dir(d)
        path = d / f"{time.time():.6f}-{uuid.uuid4().hex[:8]}.json"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(tell, f)
        return path
    except (OSError, ConfigError):
        return None


def pending(storage: str, study: str, warn: Callable[[str], None] = lambda _: None) -> list[tuple[Path, dict[str, Any]]]:
    """Undelivered tells, oldest first (damaged files are skipped and left for a person to look at; files
    another user could have written are skipped with a warning)."""
    d = spool_dir(storage, study)
    out = []
    for path in sorted(d.glob("*.json")) if d.is_dir() else []:
        why = untrusted(path)
        if why is not None:
            warn(f"the spooled tell {str(path)!r} is ignored: {why}")
            continue
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and isinstance(data.get("ref"), str):
            out.append((path, data))
    return out

"""Study names and the data directories they own: validated at the edge, cleaned by exact name only."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from autotune.errors import ConfigError

STUDY_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


def check_study_name(value: object, where: str = "study") -> str:
    """``value`` if it is a safe study name (it names files and directories), else a one-line ConfigError."""
    if not isinstance(value, str) or not STUDY_RE.fullmatch(value) or ".." in value:
        raise ConfigError(f"{where}: {value!r} is not a study name: expected 1-128 letters, digits, '.', '_', '-', "
                          "starting with a letter or digit, without '..'")
    return value


def data_dir_name(study: str, trial: int, repetition: int) -> str:
    """The one data directory of (trial, repetition): ``<study>-t<trial>-r<repetition>``."""
    return f"{check_study_name(study)}-t{trial:04d}-r{repetition}"


def data_dir_re(study: str) -> re.Pattern[str]:
    """Matches (in full) exactly the names ``data_dir_name`` gives for ``study``, for no other study."""
    return re.compile(rf"{re.escape(check_study_name(study))}-t\d+-r\d+")


def clean_stale_data(root: Path, study: str) -> list[str]:
    """Remove data directories left by interrupted runs of ``study`` directly in ``root``; returns their names.

    Only entries whose whole name is this study's data-directory name are touched; a symbolic link is
    removed itself, never followed; nothing outside ``root`` (resolved) is ever removed.
    """
    pattern = data_dir_re(study)
    if not root.is_dir():
        return []
    base = root.resolve()
    removed = []
    with os.scandir(base) as entries:
        for entry in entries:
            if not pattern.fullmatch(entry.name):
                continue
            path = base / entry.name
            if path.parent != base:
                continue
            if entry.is_symlink() or not entry.is_dir(follow_symlinks=False):
                path.unlink(missing_ok=True)
            else:
                shutil.rmtree(path, ignore_errors=True)
            removed.append(entry.name)
    return removed

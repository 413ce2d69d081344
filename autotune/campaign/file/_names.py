"""Study names and the data directories they own: where they go, validated at the edge, cleaned by exact name only."""

from __future__ import annotations

import getpass
import os
import re
import shutil
from collections.abc import Callable, Container, Iterable
from pathlib import Path

from autotune.errors import ConfigError

# Run numbers from here on are no trial's: re-measurement runs (from 1,000,000) and confirmation runs (2,000,000).
REMEASURE_BASE = 1_000_000
STUDY_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
# A user's own directory on a site's scratch file system, when the site sets one: NERSC's $SCRATCH ("expands to
# /global/cscratch1/sd/YourUserName", NERSC Cori scratch page) and Perlmutter's $PSCRATCH.
USER_DIR_VARIABLES = ("SCRATCH", "PSCRATCH")


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
    return re.compile(rf"{re.escape(check_study_name(study))}-t(\d+)-r\d+")


def is_mount_root(path: str | Path, profile_paths: Iterable[str | None] = ()) -> bool:
    """Whether ``path`` is a file system's root: ``/``, a path a system profile gives a file system (its mount,
    shared by every user of the site), or a mount point on this host."""
    p = os.path.normpath(os.path.expanduser(str(path)))
    named = {"/"} | {os.path.normpath(r) for r in profile_paths if r}
    return p in named or os.path.realpath(p) in {os.path.realpath(r) for r in named} or os.path.ismount(p)


def _inside(path: str | Path, root: str | Path) -> bool:
    a, b = os.path.realpath(path), os.path.realpath(root)
    return a == b or a.startswith(b.rstrip("/") + "/")


def _user() -> str:
    try:
        name = re.sub(r"[^A-Za-z0-9._-]", "_", getpass.getuser())
    except (KeyError, OSError):  # no login name and no passwd entry (a bare container)
        name = ""
    return name if name.strip("._") else f"uid{os.getuid()}"


def data_root_for(path: str | None, workdir: Path, study: str, profile_paths: Iterable[str | None] = ()) -> Path:
    """The folder the data directories of ``study`` go into, never a file system's root (``is_mount_root``).

    No path: ``<workdir>/data``. A path that is no root (a folder of the user's): that folder. A root: the
    work directory's ``data`` folder when the work directory is on it, else ``autotune-data/<study>`` in the
    user's own directory on it (``$SCRATCH``, ``$PSCRATCH``), else ``<root>/autotune-<user>/<study>``.
    """
    if not path:
        return workdir / "data"
    root = Path(path).expanduser()
    if not is_mount_root(root, profile_paths):
        return root
    if _inside(workdir, root):
        return workdir / "data"
    for variable in USER_DIR_VARIABLES:
        own = os.environ.get(variable, "")
        if os.path.isabs(own) and _inside(own, root) and not is_mount_root(own, profile_paths):
            return Path(own) / "autotune-data" / check_study_name(study)
    return root / f"autotune-{_user()}" / check_study_name(study)


def clean_stale_data(root: Path, study: str, in_use: Callable[[], Container[int]] | None = None) -> list[str]:
    """Remove data directories left by interrupted runs of ``study`` directly in ``root``; returns their names.

    Only entries whose whole name is this study's data-directory name are touched, and none whose trial
    number is in ``in_use()`` (trials that may still write: a live worker's, a job a resumed campaign adopts).
    ``in_use`` is asked after the directory was listed, so a trial started meanwhile is in it or not listed.
    A symbolic link is removed itself, never followed; nothing outside ``root`` (resolved) is ever removed.
    """
    pattern = data_dir_re(study)
    if not root.is_dir():
        return []
    base = root.resolve()
    with os.scandir(base) as entries:
        ours = [(entry, int(m[1])) for entry in entries if (m := pattern.fullmatch(entry.name))]
    busy = in_use() if in_use is not None and ours else ()
    removed = []
    for entry, number in ours:
        path = base / entry.name
        if number in busy or path.parent != base:
            continue
        if entry.is_symlink() or not entry.is_dir(follow_symlinks=False):
            path.unlink(missing_ok=True)
        else:
            shutil.rmtree(path, ignore_errors=True)
        removed.append(entry.name)
    return removed

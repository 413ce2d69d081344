"""Writing autotune's own files without following links planted in their place.

Every file autotune writes under a work directory is opened with ``O_NOFOLLOW`` (open(2): the open fails
with ELOOP when the last component is a symbolic link) and ``O_NONBLOCK`` (a FIFO planted there fails
instead of blocking); anything but a regular file is refused. Directories autotune makes are checked
with ``lstat`` before use: a link in their place is refused, never followed. ``check_no_links`` refuses
a records tree holding links before a campaign writes to it. Each refusal is one line (``ConfigError``).

What a link at or above the work directory itself points to is the user's choice (a ``/scratch`` link)
and is followed; only the components autotune makes below it are checked.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from autotune.errors import ConfigError

_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def link_refused(path: Path) -> ConfigError:
    """The one-line refusal for a link (or another non-file) where autotune writes."""
    try:
        what = f"a symbolic link to {os.readlink(path)!r}" if path.is_symlink() else "not a regular file or directory"
    except OSError:
        what = "not a regular file or directory"
    return ConfigError(f"{str(path)!r} is {what}, where autotune writes its own records; autotune never writes "
                       "through links: remove it, or use another work directory")


def _real_dir(path: Path) -> bool:
    """True when ``path`` is a directory itself (not a link to one); False when it does not exist."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return False
    if not stat.S_ISDIR(st.st_mode):
        raise link_refused(path)
    return True


def make_dirs(path: Path, under: Path | None = None, mode: int = 0o777) -> Path:
    """``mkdir -p path`` where every component below ``under`` (default: ``path``'s parent, so ``path``
    itself) is a real directory, never a link; missing ones are made with ``mode`` (less the umask)."""
    base = path.parent if under is None else under
    try:
        rel = path.relative_to(base)
    except ValueError:
        raise ValueError(f"{path} is not below {base}") from None
    base.mkdir(parents=True, exist_ok=True)
    cur = base
    for part in rel.parts:
        cur = cur / part
        if not _real_dir(cur):
            try:
                os.mkdir(cur, mode)
            except FileExistsError:
                _real_dir(cur)  # made meanwhile: a directory, or refused
    return path


def _open(path: Path, extra: int, mode: int) -> int:
    try:
        fd = os.open(path, _FLAGS | extra, mode)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO, errno.EISDIR):
            raise link_refused(path) from None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise link_refused(path)
    os.set_blocking(fd, True)
    return fd


def _parent(path: Path, under: Path | None) -> None:
    if under is None:
        path.parent.mkdir(parents=True, exist_ok=True)
    else:
        make_dirs(path.parent, under)


def write_file(path: Path, data: str | bytes, mode: int = 0o666, under: Path | None = None, sync: bool = False) -> None:
    """Write ``data`` to ``path`` (truncating it) without following a link at it, nor in the directories
    below ``under`` (``make_dirs``); ``sync``: fsync it. A file that exists keeps its permissions."""
    _parent(path, under)
    fd = _open(path, os.O_TRUNC, mode)
    with os.fdopen(fd, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)
        if sync:
            f.flush()
            os.fsync(f.fileno())


def replace_file(path: Path, data: str | bytes, mode: int = 0o666, under: Path | None = None) -> None:
    """Write ``data`` to ``path`` whole or not at all: a fresh temporary file beside it (``O_EXCL``), then
    ``rename(2)``, which replaces a link at ``path`` and never follows it."""
    _parent(path, under)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    fd = _open(tmp, os.O_EXCL, mode)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def open_lock(path: Path, mode: int = 0o644) -> int:
    """A lock file opened read-write (created when missing) without following a link at it."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise link_refused(path) from None
        raise
    return fd


def check_no_links(root: Path, *names: str) -> None:
    """Refuse (one line) the first symbolic link at ``root/name`` or anywhere below it, for each of ``names``."""
    for name in names:
        top = root / name
        if top.is_symlink():
            raise link_refused(top)
        for dirpath, dirnames, filenames in os.walk(top):  # never descends into a link
            for entry in (*dirnames, *filenames):
                p = Path(dirpath) / entry
                if p.is_symlink():
                    raise link_refused(p)

"""Reading a Darshan log safely: the file itself (a gzip/bzip2/xz copy is decompressed first), and
PyDarshan's C library (libdarshan-util) run in a child process with a deadline.

libdarshan-util aborts the process on some damaged logs ("double free or corruption", SIGABRT/SIGSEGV),
prints its own ``Error: ...`` lines on stderr, and a damaged length field can keep it busy: so a read runs
in a child whose stderr is kept, and is given up after ``read_deadline`` seconds.
"""

from __future__ import annotations

import bz2
import contextlib
import faulthandler
import gzip
import lzma
import multiprocessing as mp
import os
import pickle
import signal
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

DEADLINE_BASE = 60.0        # seconds any log may take to read ...
DEADLINE_PER_MIB = 2.0      # ... plus this per MiB of log (PyDarshan reads a few MiB of records a second)
MAX_INFLATION = 50          # a compressed copy of a log (already zlib-compressed inside) is never 50 x smaller
_COMPRESSED = ((b"\x1f\x8b", "gzip", gzip.open), (b"BZh", "bzip2", bz2.open), (b"\xfd7zXZ\x00", "xz", lzma.open))


class ReadFailed(Exception):
    """The child died or ran out of time: ``how`` (killed by SIGABRT, no answer within N s) and
    ``library`` (libdarshan-util's own 'Error:' lines, joined; '' when it said nothing)."""

    def __init__(self, how: str, library: str) -> None:
        super().__init__(f"libdarshan-util failed reading it ({how}{': ' + library if library else ''})")
        self.how, self.library = how, library


def what_is_wrong(path: Path) -> str | None:
    """Why ``path`` cannot be a log file at all (a folder, a FIFO, missing), or None."""
    if path.is_dir():
        return "is a directory, not a log file"
    if not path.exists():
        return "broken symbolic link" if path.is_symlink() else "no such file"
    if not path.is_file():
        return "is not a regular file (a FIFO, socket or device)"
    return None


def compression(path: Path) -> str | None:
    """'gzip', 'bzip2' or 'xz' when the file is a compressed copy (by its magic bytes), else None."""
    try:
        with path.open("rb") as fh:
            head = fh.read(6)
    except OSError:
        return None
    return next((name for magic, name, _ in _COMPRESSED if head.startswith(magic)), None)


@contextlib.contextmanager
def plain_copy(path: Path) -> Iterator[Path]:
    """``path`` itself, or for a compressed copy the log decompressed into a temporary file (raises ValueError
    with the reason when it cannot be decompressed or would inflate past ``MAX_INFLATION`` x its size)."""
    kind = compression(path)
    if kind is None:
        yield path
        return
    opener = next(op for _, name, op in _COMPRESSED if name == kind)
    limit = MAX_INFLATION * path.stat().st_size + (1 << 20)
    with tempfile.TemporaryDirectory(prefix="autotune-darshan-") as tmp:
        out = Path(tmp) / path.name
        try:
            with opener(path, "rb") as src, out.open("wb") as dst:   # type: ignore[operator]
                while chunk := src.read(1 << 20):
                    dst.write(chunk)
                    if dst.tell() > limit:
                        raise ValueError(f"the {kind} file inflates past {MAX_INFLATION} times its size: not a "
                                         "compressed Darshan log")
        except (OSError, EOFError, lzma.LZMAError) as exc:
            raise ValueError(f"a {kind} file that cannot be decompressed ({type(exc).__name__}: "
                             f"{' '.join(str(exc).split())[:120]}): copy it again") from None
        yield out


def read_deadline(path: Path) -> float:
    """Seconds a read of ``path`` may take before it counts as a hang."""
    try:
        size = path.stat().st_size
    except OSError:
        size = 0
    return DEADLINE_BASE + DEADLINE_PER_MIB * size / 2**20


def library_error(stderr: str) -> str:
    """libdarshan-util's own account of a failure: its 'Error: ...' lines, joined (else '')."""
    lines = [ln.strip().removeprefix("Error:").strip().rstrip(".") for ln in stderr.splitlines()
             if ln.strip().startswith("Error:")]
    return "; ".join(dict.fromkeys(lines))


def in_child(fn: Callable[[Path], Any], path: Path, deadline: float | None = None) -> tuple[Any, Exception | None, str]:
    """``fn(path)`` in a child process (fork where there is one): (its result, the exception it raised instead
    (its type kept when it can be pickled), libdarshan-util's own error lines).

    A crash, or a child still busy after ``deadline`` seconds (default ``read_deadline``), raises ReadFailed."""
    limit = read_deadline(path) if deadline is None else deadline
    ctx: Any = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    with tempfile.TemporaryFile(mode="w+") as err:
        here, there = ctx.Pipe(duplex=False)
        child = ctx.Process(target=_child, args=(fn, path, there, err.fileno()), daemon=True)
        child.start()
        there.close()
        result: tuple[str, Any] | None = None
        try:
            if here.poll(limit):
                result = here.recv()
        except (EOFError, OSError):
            result = None
        finally:
            child.join(5)
            busy = child.is_alive()
            if busy:
                child.kill()
                child.join()
            here.close()
        err.seek(0)
        why = library_error(err.read())
    if result is None:
        code = child.exitcode
        how = (f"no answer within {limit:.0f} s" if busy or code is None else
               f"killed by {signal.Signals(-code).name}" if code < 0 and -code in signal.valid_signals()
               else f"exit status {code}")
        raise ReadFailed(how, why)
    kind, value = result
    return (None, value, why) if kind == "raised" else (value, None, why)


def _child(fn: Callable[[Path], Any], path: Path, conn: Any, err_fd: int) -> None:
    """The child's side: stderr into ``err_fd``, ``fn``'s result (or its exception) to ``conn``."""
    faulthandler.disable()                  # a crash is reported by the parent, not dumped on the user's terminal
    os.environ["LIBC_FATAL_STDERR_"] = "1"  # glibc's abort messages to stderr (kept), not to /dev/tty
    os.dup2(err_fd, 2)
    try:
        conn.send(("ok", fn(path)))
    except Exception as exc:  # noqa: BLE001 - handed to the parent, which says what it means
        try:
            pickle.dumps(exc)
        except Exception:  # noqa: BLE001 - an exception that cannot travel goes as its text
            exc = RuntimeError(f"{type(exc).__name__}: {exc}")
        conn.send(("raised", exc))
    finally:
        conn.close()


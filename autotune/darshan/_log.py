"""Reading a Darshan log with PyDarshan into per-file figures (no interpretation here).

The header is checked first (magic number, every region present) so that a truncated or foreign
file is one clear error instead of libdarshan-util's messages or a partial read.
"""

from __future__ import annotations

import multiprocessing as mp
import signal
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autotune.errors import ConfigError
from autotune.measure import check_darshan_header

_DATA_MODULES = ("POSIX", "MPI-IO")
WHAT_TO_DO = "give the .darshan file the job left (darshan-parser must read it)"


def _check_header(path: Path) -> None:
    """A complete Darshan 3 log, else one ConfigError saying what it is."""
    problem = check_darshan_header(path)
    if problem:
        what = "copy the whole log again" if problem.startswith("truncated") else WHAT_TO_DO
        raise ConfigError(f"darshan log {str(path)!r}: {problem}; {what}")


@dataclass
class JobLog:
    """What one Darshan log says: job facts, mounts, and a data frame per module (counters + fcounters)."""

    path: Path
    nprocs: int
    exe: str
    jobid: int
    run_time: float
    modules: list[str]
    mounts: list[tuple[str, str]]
    frames: dict[str, Any] = field(default_factory=dict)   # module -> pandas DataFrame with a 'name' column
    lustre: Any = None                                       # DataFrame of LUSTRE components, or None
    names: dict[int, str] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)        # optional modules PyDarshan could not read

    def frame(self, module: str) -> Any:
        return self.frames.get(module)

    def mount_of(self, name: str) -> tuple[str, str]:
        """(mount point, file-system type) of a file: the longest mount point prefix."""
        best = ("", "unknown")
        for mnt, kind in self.mounts:
            prefix = mnt.rstrip("/") + "/"
            if (name.startswith(prefix) or name == mnt) and len(mnt) > len(best[0]):
                best = (mnt, kind)
        return best


READ_TIMEOUT = 300.0   # seconds one log may take to read (a damaged length field can make libdarshan-util spin)


def read_log(path: str | Path, require_data: bool = True) -> JobLog:
    """Read ``path`` with PyDarshan; one ConfigError for anything that is not a usable log.

    PyDarshan's C library (libdarshan-util) can abort the process on a damaged log ("double free or
    corruption") and prints its own "Error: ..." lines on stderr, so the log is read in a child process
    whose stderr is kept: a crash or a failed read becomes one line naming what libdarshan-util could not read.
    """
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"darshan log {str(p)!r}: no such file; {WHAT_TO_DO}")
    _check_header(p)
    try:
        import darshan  # noqa: F401 - only whether it is installed
    except ImportError:
        raise ConfigError("reading Darshan logs needs PyDarshan: pip install 'autotune[darshan]'") from None
    log = _read_isolated(p)
    if log.nprocs < 1:
        raise ConfigError(f"darshan log {str(p)!r}: records {log.nprocs} processes; {WHAT_TO_DO}")
    present = [m for m in _DATA_MODULES if m in log.modules]
    if require_data and not present:
        raise ConfigError(f"darshan log {str(p)!r}: no POSIX or MPI-IO records (modules: {', '.join(log.modules) or 'none'}),"
                          " so there is no I/O pattern to tune; enable Darshan's POSIX/MPI-IO modules for the job "
                          "(the default) and give that log")
    if require_data and not any(m in log.frames for m in _DATA_MODULES):
        raise ConfigError(f"darshan log {str(p)!r}: its POSIX/MPI-IO modules hold no file records, so there is no "
                          "I/O pattern to tune; give the log of a job that did its I/O with Darshan loaded")
    return log


def _library_error(stderr: str) -> str:
    """libdarshan-util's own account of a failure: its 'Error: ...' lines, joined (else '')."""
    lines = [ln.strip().removeprefix("Error:").strip().rstrip(".") for ln in stderr.splitlines()
             if ln.strip().startswith("Error:")]
    return "; ".join(dict.fromkeys(lines))


def _read_isolated(p: Path) -> JobLog:
    """``_read`` in a child process (fork where there is one), its C-level stderr captured."""
    methods = mp.get_all_start_methods()
    ctx: Any = mp.get_context("fork" if "fork" in methods else "spawn")
    with tempfile.TemporaryFile(mode="w+") as err:
        here, there = ctx.Pipe(duplex=False)
        child = ctx.Process(target=_child, args=(p, there, err.fileno()), daemon=True)
        child.start()
        there.close()
        result: tuple[str, Any] | None = None
        try:
            if here.poll(READ_TIMEOUT):
                result = here.recv()
        except (EOFError, OSError):
            result = None
        finally:
            child.join(5)
            if child.is_alive():
                child.kill()
                child.join()
            here.close()
        err.seek(0)
        why = _library_error(err.read())
    if result is None:
        code = child.exitcode
        how = (f"killed by {signal.Signals(-code).name}" if code is not None and code < 0 and -code in
               signal.valid_signals() else f"no answer within {READ_TIMEOUT:.0f} s" if code is None or child.is_alive()
               else f"exit status {code}")
        raise ConfigError(f"darshan log {str(p)!r}: PyDarshan's libdarshan-util failed reading it ({how}"
                          f"{': ' + why if why else ''}): the log is damaged; {WHAT_TO_DO}")
    kind, value = result
    if kind == "error":
        raise ConfigError(value)
    if kind == "unreadable":
        what, detail = value
        raise ConfigError(f"darshan log {str(p)!r}: {what} ({'libdarshan-util: ' + why if why else detail}); "
                          f"the log is damaged or PyDarshan cannot read its format; {WHAT_TO_DO}")
    log: JobLog = value
    if log.nprocs < 1 and why:
        raise ConfigError(f"darshan log {str(p)!r}: its job record cannot be read (libdarshan-util: {why}); "
                          f"the log is damaged; {WHAT_TO_DO}")
    return log


class _Unreadable(Exception):
    """A part of the log PyDarshan could not read: what it is, and PyDarshan's own exception."""


def _child(p: Path, conn: Any, err_fd: int) -> None:
    """The child's side: libdarshan-util's stderr into ``err_fd``, the log (or its one-line error) to ``conn``."""
    import faulthandler
    import os

    faulthandler.disable()                  # a crash is reported by the parent, not dumped on the user's terminal
    os.environ["LIBC_FATAL_STDERR_"] = "1"  # glibc's abort messages to stderr (kept), not to /dev/tty
    os.dup2(err_fd, 2)
    try:
        conn.send(("log", _read(p)))
    except _Unreadable as exc:
        conn.send(("unreadable", exc.args))
    except Exception as exc:  # noqa: BLE001 - PyDarshan's own failures on a damaged log, reported as one line
        conn.send(("unreadable", ("PyDarshan cannot read it", _detail(exc))))
    finally:
        conn.close()


def _detail(exc: Exception) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}"


def _read(p: Path) -> JobLog:
    """The log's job facts, mounts and module frames (optional modules that fail are listed in ``skipped``)."""
    import darshan

    try:
        report = darshan.DarshanReport(str(p), read_all=False)
    except Exception as exc:  # noqa: BLE001 - libdarshan-util reports every failure as RuntimeError
        raise _Unreadable("PyDarshan cannot open it", _detail(exc)) from None
    modules = list(report.modules)
    job = report.metadata.get("job", {})
    log = JobLog(path=p, nprocs=int(job.get("nprocs", 0) or 0), exe=str(report.metadata.get("exe", "")).strip(),
                 jobid=int(job.get("jobid", 0) or 0), run_time=float(job.get("run_time", 0.0) or 0.0),
                 modules=modules, mounts=[(str(m), str(t)) for m, t in getattr(report, "mounts", [])],
                 metadata=dict(job.get("metadata") or {}))
    if log.nprocs < 1 or not any(m in modules for m in _DATA_MODULES):
        return log   # the parent says what is missing
    for mod in ("POSIX", "MPI-IO", "H5F", "H5D", "PNETCDF_FILE", "PNETCDF_VAR", "LUSTRE"):
        if mod not in modules:
            continue
        try:
            _read_module(report, log, mod)
        except Exception as exc:  # noqa: BLE001 - a damaged region inside a valid header
            if mod in _DATA_MODULES:
                raise _Unreadable(f"cannot read its {mod} records", _detail(exc)) from None
            log.skipped.append(f"{mod} ({type(exc).__name__})")  # optional: the pattern does without it
    log.names = dict(getattr(report, "name_records", {}) or {})
    return log


def _read_module(report: Any, log: JobLog, mod: str) -> None:
    """One module's records into ``log`` (LUSTRE: its stripe components)."""
    if mod == "LUSTRE":
        report.mod_read_all_lustre_records(warnings=False)
        if "LUSTRE" in report.records and len(report.records["LUSTRE"]):
            log.lustre = report.records["LUSTRE"].to_df()["components"]
        return
    report.mod_read_all_records(mod, warnings=False)
    frames = report.records[mod].to_df() if mod in report.records else None
    if frames is not None and len(frames["counters"]):
        df = frames["counters"].merge(frames["fcounters"], on=["id", "rank"], how="left")
        df["name"] = [report.name_records.get(i, "") for i in df["id"]]
        log.frames[mod] = df

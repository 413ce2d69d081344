"""Reading a Darshan log with PyDarshan into per-file figures (no interpretation here).

The header is checked first (magic number, every region present) so that a truncated or foreign
file is one clear error instead of libdarshan-util's messages or a partial read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autotune.errors import ConfigError
from autotune.measure import ReadFailed, check_darshan_header, in_child, plain_copy, what_is_wrong

_DATA_MODULES = ("POSIX", "MPI-IO")
WHAT_TO_DO = "give the .darshan file the job left (darshan-parser must read it)"


def _check_header(path: Path, named: Path) -> None:
    """A complete Darshan 3 log, else one ConfigError (naming ``named``, the file given) saying what it is."""
    problem = check_darshan_header(path)
    if problem:
        what = "copy the whole log again" if problem.startswith("truncated") else WHAT_TO_DO
        if named.name.endswith("_partial"):
            problem += " (a *.darshan_partial file: the job stopped while Darshan wrote its log)"
        raise ConfigError(f"darshan log {str(named)!r}: {problem}; {what}")


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
    partial: list[str] = field(default_factory=list)        # modules whose records Darshan could not all keep
    unread: str = ""                                         # libdarshan-util's words when it could not read all

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


def read_log(path: str | Path, require_data: bool = True) -> JobLog:
    """Read ``path`` with PyDarshan; one ConfigError for anything that is not a usable log.

    A gzip, bzip2 or xz copy of a log is decompressed first. PyDarshan's C library (libdarshan-util) can abort
    the process on a damaged log ("double free or corruption"), prints its own "Error: ..." lines on stderr and
    may not stop on a damaged one, so the log is read in a child process with a deadline (``in_child``): a
    crash, a hang or a failed read becomes one line naming what libdarshan-util could not read.
    """
    p = Path(path)
    problem = what_is_wrong(p)
    if problem:
        raise ConfigError(f"darshan log {str(p)!r}: {problem}; {WHAT_TO_DO}")
    try:
        import darshan  # noqa: F401  # lazy: optional PyDarshan (only whether it is installed)
    except ImportError:
        raise ConfigError("reading Darshan logs needs PyDarshan: pip install 'autotune[darshan]'") from None
    try:
        with plain_copy(p) as plain:
            _check_header(plain, p)
            log = _read_isolated(plain, p)
    except ValueError as exc:   # a compressed copy that cannot be decompressed
        raise ConfigError(f"darshan log {str(p)!r}: {exc}") from None
    log.path = p
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


def _read_isolated(p: Path, named: Path) -> JobLog:
    """``_read`` in a child process (``in_child``), its failures as one ConfigError naming ``named``."""
    left = " (a *.darshan_partial file: the job stopped while Darshan wrote its log)" \
        if named.name.endswith("_partial") else ""
    try:
        log, exc, why = in_child(_read, p)
    except ReadFailed as failed:
        raise ConfigError(f"darshan log {str(named)!r}: PyDarshan's libdarshan-util failed reading it ({failed.how}"
                          f"{': ' + failed.library if failed.library else ''}): the log is damaged{left}; {WHAT_TO_DO}"
                          ) from None
    if isinstance(exc, _Unreadable):
        what, detail = exc.args
        raise ConfigError(f"darshan log {str(named)!r}: {what} ({'libdarshan-util: ' + why if why else detail}); "
                          f"the log is damaged or PyDarshan cannot read its format{left}; {WHAT_TO_DO}")
    if exc is not None:
        said = f"libdarshan-util: {why}" if why else _detail(exc)
        raise ConfigError(f"darshan log {str(named)!r}: PyDarshan cannot read it ({said}); the log is damaged or "
                          f"PyDarshan cannot read its format{left}; {WHAT_TO_DO}")
    if log.nprocs < 1 and why:
        raise ConfigError(f"darshan log {str(named)!r}: its job record cannot be read (libdarshan-util: {why}); "
                          f"the log is damaged{left}; {WHAT_TO_DO}")
    result: JobLog = log
    result.unread = why   # read, but libdarshan-util stopped somewhere: the campaign says so
    return result


class _Unreadable(Exception):
    """A part of the log PyDarshan could not read: what it is, and PyDarshan's own exception."""


def _detail(exc: Exception) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}"


def _read(p: Path) -> JobLog:
    """The log's job facts, mounts and module frames (optional modules that fail are listed in ``skipped``)."""
    import darshan  # lazy: optional PyDarshan

    try:
        report = darshan.DarshanReport(str(p), read_all=False)
    except Exception as exc:  # noqa: BLE001 - libdarshan-util reports every failure as RuntimeError
        raise _Unreadable("PyDarshan cannot open it", _detail(exc)) from None
    modules = list(report.modules)
    partial = [m for m in modules if (report.modules.get(m) or {}).get("partial_flag")]
    job = report.metadata.get("job", {})
    log = JobLog(path=p, nprocs=int(job.get("nprocs", 0) or 0), exe=str(report.metadata.get("exe", "")).strip(),
                 jobid=int(job.get("jobid", 0) or 0), run_time=float(job.get("run_time", 0.0) or 0.0),
                 modules=modules, mounts=[(str(m), str(t)) for m, t in getattr(report, "mounts", [])],
                 metadata=dict(job.get("metadata") or {}), partial=partial)
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

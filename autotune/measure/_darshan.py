"""``extractor: darshan``: the figures of the Darshan log a run leaves (for apps that print nothing useful).

The run must write its log where the extractor looks: ``logs`` is a glob (default ``{run_dir}/*.darshan``,
``{run_dir}`` being the repetition's run directory) and the campaign sets ``DARSHAN_LOGFILE:
"{run_dir}/app.darshan"`` in ``app.env`` (Darshan's runtime honours it). The newest complete log that
is not older than the run is read. Metrics: ``write_/read_bandwidth_mib_s`` (bytes / span from the first
start to the last end of that operation over all files), ``write_/read_seconds``, ``bytes_written``,
``bytes_read`` at the layer the app called (MPI-IO when it used it, else POSIX), and Darshan's own
``bandwidth_mib_s`` / ``io_seconds`` (``agg_perf_by_slowest`` / ``agg_time_by_slowest``, as
darshan-job-summary reports them).
"""

from __future__ import annotations

import glob
import struct
import time
from pathlib import Path
from typing import Any, ClassVar

from autotune._registry import Option
from autotune._result import RunResult
from autotune.errors import ConfigError
from autotune.measure._darshanfile import ReadFailed, in_child, plain_copy, what_is_wrong
from autotune.measure._extract import BaseExtractor, Measurement

DARSHAN_MAGIC = 6567223
DAMAGED = 1 << 40   # a region offset or length this large is a damaged header, not a log (they are MiB to GiB)
_PSEUDO = ("<STDIN>", "<STDOUT>", "<STDERR>")


def header_maps(version: str) -> int:
    """Region maps in a Darshan 3 header: the name map and one per module slot (``DARSHAN_MAX_MODS``:
    16 up to log format 3.21, 64 from format 3.41; darshan-log-format.h)."""
    return 17 if version < "3.41" else 65


def check_darshan_header(path: Path) -> str | None:
    """None for a complete Darshan 3 log, else what is wrong (not Darshan, other format, truncated)."""
    try:
        size = path.stat().st_size
        with path.open("rb") as fh:
            head = fh.read(24 + 16 * 65)
    except OSError as exc:
        return f"cannot read it ({exc.strerror or exc})"
    if len(head) < 24:
        return f"{size} bytes is not a Darshan log"
    little = struct.unpack("<q", head[8:16])[0] == DARSHAN_MAGIC
    if not little and struct.unpack(">q", head[8:16])[0] != DARSHAN_MAGIC:
        return "not a Darshan log (no Darshan magic number)"
    version = head[:8].split(b"\0")[0].decode("ascii", "replace")
    if not version.startswith("3."):
        return (f"format {version!r} is not Darshan 3.x (PyDarshan reads Darshan 3 logs; use the darshan-util "
                "of the log's own version)")
    order = "<" if little else ">"
    count = header_maps(version)
    if len(head) < 24 + 16 * count:  # the header itself is cut: its region table is incomplete
        return f"truncated ({size} of at least {24 + 16 * count} bytes: the header's region table is cut)"
    maps = [struct.unpack(order + "QQ", head[24 + 16 * i:40 + 16 * i]) for i in range(count)]
    if any(off >= DAMAGED or length >= DAMAGED for off, length in maps):   # a cut log keeps its header intact
        return "its header is damaged (its region table points past 1 TiB)"
    end = maps[0][0]
    for off, length in maps:  # regions are written back to back after the header
        if length == 0:
            continue
        if off != end:
            break
        end = off + length
    if size < end:
        return f"truncated ({size} of {end} bytes)"
    return None


def log_metrics(path: str | Path) -> dict[str, float]:
    """The figures of one log (raises ValueError with a one-line reason when it cannot be read).

    A gzip/bzip2/xz copy is decompressed first; PyDarshan reads the log in a child process with a deadline
    (``_darshanfile``), so a damaged log that crashes or hangs libdarshan-util is a failed measurement."""
    p = Path(path)
    problem = what_is_wrong(p)
    if problem:
        raise ValueError(f"{p.name}: {problem}")
    try:
        import darshan  # noqa: F401  # lazy: optional PyDarshan (only whether it is installed)
    except ImportError:
        raise ValueError("reading Darshan logs needs PyDarshan: pip install 'autotune[darshan]'") from None
    with plain_copy(p) as plain:
        problem = check_darshan_header(plain)
        if problem:
            raise ValueError(f"{p.name}: {problem}")
        try:
            out, exc, why = in_child(_metrics, plain)
        except ReadFailed as failed:
            raise ValueError(f"{p.name}: {failed}: the log is damaged") from None
    if why:   # libdarshan-util said a part could not be read: figures from the rest would mislead
        raise ValueError(f"{p.name}: PyDarshan could not read all of it (libdarshan-util: {why}): the log is damaged")
    if isinstance(exc, ValueError):
        raise ValueError(f"{p.name}: {exc}")
    if exc is not None:
        raise ValueError(f"{p.name}: PyDarshan cannot read it ({type(exc).__name__}: {' '.join(str(exc).split())[:160]}):"
                         " the log is damaged")
    result: dict[str, float] = out
    return result


def _metrics(p: Path) -> dict[str, float]:
    """``log_metrics``'s reading (in the child): ValueError when the log has no POSIX or MPI-IO bytes."""
    import darshan  # lazy: optional PyDarshan
    from darshan.backend.cffi_backend import accumulate_records  # lazy: optional PyDarshan

    report = darshan.DarshanReport(str(p), read_all=False)
    nprocs = int(report.metadata["job"]["nprocs"])
    out: dict[str, float] = {}
    for mod in ("MPI-IO", "POSIX"):
        if mod not in report.modules:
            continue
        report.mod_read_all_records(mod, warnings=False)
        if mod not in report.records or not len(report.records[mod]):
            continue
        frames = report.records[mod].to_df()
        c, f = frames["counters"], frames["fcounters"]
        keep = [report.name_records.get(i, "") not in _PSEUDO for i in c["id"]]
        c, f = c[keep], f[keep]
        pre = mod.replace("-", "")
        written, read = float(c[f"{pre}_BYTES_WRITTEN"].clip(lower=0).sum()), float(c[f"{pre}_BYTES_READ"].clip(lower=0).sum())
        if written + read <= 0:
            continue
        for op, nbytes in (("write", written), ("read", read)):
            start, end = f[f"{pre}_F_{op.upper()}_START_TIMESTAMP"], f[f"{pre}_F_{op.upper()}_END_TIMESTAMP"]
            started = start[start > 0]
            if nbytes > 0 and len(started):
                span = float(end.max() - started.min())
                out[f"{op}_seconds"] = span
                if span > 0:
                    out[f"{op}_bandwidth_mib_s"] = nbytes / 2**20 / span
        out.update(bytes_written=written, bytes_read=read)
        acc = accumulate_records(frames, mod, nprocs).derived_metrics
        out.update(bandwidth_mib_s=float(acc.agg_perf_by_slowest), io_seconds=float(acc.agg_time_by_slowest))
        return out
    raise ValueError("no POSIX or MPI-IO bytes in the log")


class DarshanExtractor(BaseExtractor):
    """The figures of the Darshan log the run left under ``logs`` (a glob; ``{run_dir}`` is replaced)."""

    name: ClassVar[str] = "darshan"
    schema = (Option.text("logs", "a glob; {run_dir} is replaced"),)

    def __init__(self, options: Any = None, where: str = "app.metric") -> None:
        super().__init__(options, where)
        logs = self.options.get("logs", "{run_dir}/*.darshan")
        if not isinstance(logs, str) or not logs.strip():
            raise ConfigError(f"{where}.logs: {logs!r} is not a path or glob of Darshan logs")
        self.logs = logs

    def find(self, result: RunResult) -> Path | None:
        """The newest complete log matching ``logs`` written since the run started."""
        pattern = self.logs.replace("{run_dir}", str(result.info.get("run_dir", ".")))
        since = time.time() - max(result.wall_seconds, 0.0) - 60.0
        found = [Path(x) for x in glob.glob(pattern) if not x.endswith("_partial")]
        found = [x for x in found if x.is_file() and x.stat().st_mtime >= since]
        return max(found, key=lambda x: (x.stat().st_mtime, x.name), default=None)

    def extract(self, result: RunResult, metric: str) -> Measurement:
        path = self.find(result)
        if path is None:
            pattern = self.logs.replace("{run_dir}", str(result.info.get("run_dir", ".")))
            return Measurement(None, error=f"no Darshan log from this run matches {pattern!r} (is the Darshan runtime "
                                           "loaded and DARSHAN_LOGFILE set in app.env?)")
        try:
            metrics = log_metrics(path)
        except Exception as exc:  # noqa: BLE001 - any unreadable log is a failed measurement, never a crash
            return Measurement(None, error=f"darshan log {path}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}")
        record = {"darshan_log": str(path)}
        if metric not in metrics:
            return Measurement(None, metrics, record, error=f"the Darshan log gives {', '.join(sorted(metrics))}, not {metric!r}")
        return Measurement(metrics[metric], metrics, record)

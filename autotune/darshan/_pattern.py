"""From a Darshan log to an ``app.pattern``: what the job did, in the terms the model and the rules use."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from autotune.darshan._log import JobLog
from autotune.darshan._where import is_data, locate
from autotune.errors import ConfigError

# Darshan's access-size histogram bins (POSIX_SIZE_WRITE_*, MPIIO_SIZE_WRITE_AGG_*): suffix -> [low, high)
BINS: tuple[tuple[str, int, int], ...] = (
    ("0_100", 0, 100), ("100_1K", 100, 1024), ("1K_10K", 1024, 10240), ("10K_100K", 10240, 102400),
    ("100K_1M", 102400, 1 << 20), ("1M_4M", 1 << 20, 4 << 20), ("4M_10M", 4 << 20, 10 << 20),
    ("10M_100M", 10 << 20, 100 << 20), ("100M_1G", 100 << 20, 1 << 30), ("1G_PLUS", 1 << 30, 1 << 62),
)
MATTER_FRACTION = 0.9   # the files that matter: the largest ones holding 90% of the bytes
PSEUDO = ("<STDIN>", "<STDOUT>", "<STDERR>")


@dataclass
class FileFigures:
    """One file's figures over all ranks, at the layer the app called (MPI-IO when it used it, else POSIX)."""

    name: str
    mount: str
    fs_type: str
    layer: str                     # "MPI-IO" or "POSIX"
    library: str                   # hdf5 | pnetcdf | mpiio | posix
    shared: bool
    ranks: int                     # ranks that opened it (nprocs for a shared record)
    bytes_written: int
    bytes_read: int
    counters: dict[str, float] = field(default_factory=dict)   # summed counters of both layers
    real: str = ""                 # its path on ``mount`` (a symbolic link's target), else ``name``
    where: str = ""                # how its file system was found
    data: bool = True              # the application's data (not code, a library or a system file)

    @property
    def bytes(self) -> int:
        return self.bytes_written + self.bytes_read


def _per_file(log: JobLog, mod: str) -> dict[int, dict[str, Any]]:
    """One module's counters summed per file (negative 'unknown' values as 0), with its ranks and first starts."""
    df = log.frame(mod)
    if df is None:
        return {}
    pre = mod.replace("-", "")
    cols = [c for c in df.columns if c not in ("id", "rank", "name") and df[c].dtype.kind in "if"
            and not c.endswith(("_TIMESTAMP", "_RANK", "_ACCESS", "_STRIDE", "_RANK_BYTES", "_RANK_TIME"))]
    sums = df[["id", *cols]].copy()
    sums[cols] = sums[cols].clip(lower=0)
    summed = sums.groupby("id").sum()
    out: dict[int, dict[str, Any]] = {}
    for fid, row in summed.iterrows():
        out[int(fid)] = {"counters": {c: float(v) for c, v in row.items()}}
    for fid, ranks in df.groupby("id")["rank"]:
        out[int(fid)]["ranks"] = {int(r) for r in ranks}
    for what in ("WRITE", "READ"):
        col = f"{pre}_F_{what}_START_TIMESTAMP"
        if col in df:
            started = df[df[col] > 0].groupby("id")[col].min()
            for fid, v in started.items():
                out[int(fid)]["counters"][col] = float(v)
        end = f"{pre}_F_{what}_END_TIMESTAMP"
        if end in df:
            for fid, v in df[df[end] > 0].groupby("id")[end].max().items():
                out[int(fid)]["counters"][end] = float(v)
    return out


def _names(log: JobLog, module: str) -> set[str]:
    """File names of a module's records (H5D records are named ``file:/dataset``)."""
    df = log.frame(module)
    if df is None:
        return set()
    return {str(n).split(":/", 1)[0] if module == "H5D" else str(n) for n in df["name"]}


def file_figures(log: JobLog, known: Sequence[str] = ()) -> list[FileFigures]:
    """Every file the job read or wrote (largest first), pseudo-files left out; each on the file system the
    log's evidence says (``_where.locate``; ``known``: the system profiles' file-system paths)."""
    h5_names = _names(log, "H5F") | _names(log, "H5D")
    nc_names = _names(log, "PNETCDF_FILE")
    on_lustre = {log.names.get(int(i), "") for i in log.lustre["id"]} if log.lustre is not None else set()
    lustre_dirs = {os.path.dirname(n) for n in on_lustre}   # a folder is on one file system
    by_mod = {mod: _per_file(log, mod) for mod in ("POSIX", "MPI-IO")}
    out: list[FileFigures] = []
    for fid in set(by_mod["POSIX"]) | set(by_mod["MPI-IO"]):
        name = log.names.get(fid, "")
        if not name or name in PSEUDO:
            continue
        counters: dict[str, float] = {}
        layer, shared, ranks = "POSIX", False, 0
        for mod in ("POSIX", "MPI-IO"):
            rec = by_mod[mod].get(fid)
            if rec is None:
                continue
            counters.update(rec["counters"])
            rank_set = rec["ranks"]
            shared = shared or -1 in rank_set or len(rank_set) > 1
            ranks = max(ranks, log.nprocs if -1 in rank_set else len(rank_set))
            if mod == "MPI-IO" and counters.get("MPIIO_BYTES_WRITTEN", 0) + counters.get("MPIIO_BYTES_READ", 0) > 0:
                layer = "MPI-IO"
        p = layer.replace("-", "")
        written, read = int(counters.get(f"{p}_BYTES_WRITTEN", 0)), int(counters.get(f"{p}_BYTES_READ", 0))
        if written + read == 0:
            continue
        library = "hdf5" if name in h5_names else "pnetcdf" if name in nc_names else "mpiio" if layer == "MPI-IO" else "posix"
        mount, fs_type, real, where = locate(log, name, name in on_lustre or os.path.dirname(name) in lustre_dirs,
                                            known)
        out.append(FileFigures(name, mount, fs_type, layer, library, shared, ranks, written, read, counters,
                               real, where, is_data(name)))
    out.sort(key=lambda f: (-f.bytes, f.name))
    return out


def files_that_matter(files: list[FileFigures]) -> list[FileFigures]:
    """The main files: among the application's data (``FileFigures.data``), those an I/O library or MPI-IO
    wrote or read when there are any, the largest that together hold ``MATTER_FRACTION`` of their bytes."""
    data = [f for f in files if f.data]
    pool = [f for f in data if f.library != "posix"] or data
    total = sum(f.bytes for f in pool)
    out: list[FileFigures] = []
    acc = 0
    for f in pool:
        out.append(f)
        acc += f.bytes
        if acc >= MATTER_FRACTION * total:
            break
    return out


def histogram(files: list[FileFigures], layer: str, op: str) -> dict[str, float]:
    """Summed access-size histogram (bin suffix -> operations) of ``op`` at ``layer``."""
    p = layer.replace("-", "")
    agg = "_AGG" if layer == "MPI-IO" else ""
    return {suffix: sum(f.counters.get(f"{p}_SIZE_{op.upper()}{agg}_{suffix}", 0.0) for f in files)
            for suffix, _, _ in BINS}


def dominant_size(log: JobLog, files: list[FileFigures], layer: str, op: str) -> tuple[int, str]:
    """The dominant transfer size of ``op``: the histogram bin that moved the most bytes (operations x the
    bin's most common exact access size from Darshan's ``*_ACCESS1..4`` counters, else the bin's geometric
    middle), and that exact size (else the bin's lower edge)."""
    hist = histogram(files, layer, op)
    p = layer.replace("-", "")
    df = log.frame(layer)
    exact: dict[str, dict[int, float]] = {s: {} for s, _, _ in BINS}
    if df is not None:
        rows = df[df["name"].isin({f.name for f in files})]
        for i in range(1, 5):
            a, c = f"{p}_ACCESS{i}_ACCESS", f"{p}_ACCESS{i}_COUNT"
            if a in rows and c in rows:
                for size, count in zip(rows[a], rows[c], strict=True):
                    if 0 < size < BINS[-1][2] and count > 0:   # a damaged counter can hold any value
                        suffix = next(s for s, lo, hi in BINS if lo <= size < hi)
                        exact[suffix][int(size)] = exact[suffix].get(int(size), 0.0) + float(count)

    def typical(suffix: str) -> int:
        if exact[suffix]:
            return max(exact[suffix], key=lambda s: (exact[suffix][s], s))
        low, high = next((lo, hi) for s, lo, hi in BINS if s == suffix)
        return int(math.sqrt(max(low, 1) * min(high, 4 << 30)))

    weights = {s: n * typical(s) for s, n in hist.items() if n > 0}
    if not weights:
        return _mean_size(files, op)
    suffix = max(weights, key=lambda k: (weights[k], k))
    low = next(lo for s, lo, _ in BINS if s == suffix)
    return (typical(suffix) if exact[suffix] else max(low, 100)), suffix


def _mean_size(files: list[FileFigures], op: str) -> tuple[int, str]:
    """Bytes per POSIX operation of ``op`` when no histogram records it (label ``mean``), else (0, '')."""
    ops = sum(f.counters.get(f"POSIX_{op.upper()}S", 0.0) for f in files)
    moved = sum(f.bytes_written if op == "write" else f.bytes_read for f in files)
    return (max(1, round(moved / ops)), "mean") if ops > 0 and moved > 0 else (0, "")


def phase_size(log: JobLog, matter: list[FileFigures], data: list[FileFigures], op: str) -> tuple[int, str]:
    """The dominant transfer size of ``op``: on the main files that did it, else on the data files that did."""
    did = "bytes_written" if op == "write" else "bytes_read"
    for files in ([f for f in matter if getattr(f, did)], [f for f in data if getattr(f, did)]):
        if files:
            layer = "MPI-IO" if any(f.layer == "MPI-IO" for f in files) else "POSIX"
            size = dominant_size(log, files, layer, op)
            if size[0] or files is not matter:
                return size
    return 0, ""


@dataclass
class Derived:
    """The pattern of a job and the evidence it came from."""

    pattern: dict[str, Any]
    files: list[FileFigures]
    matter: list[FileFigures]
    bytes_by_phase: dict[str, int]
    sizes: dict[str, tuple[int, str]]          # op -> (dominant transfer size, histogram bin)
    collective_ops: float
    independent_ops: float
    nodes_recorded: bool
    fs_type: str
    mount: str
    main_op: str = "write"


def derive(log: JobLog, nodes: int | None = None, known: Sequence[str] = ()) -> Derived:
    """The job's ``app.pattern`` (plain YAML values) from its log; ``nodes`` when the user knows them
    (Darshan does not record them); ``known``: the system profiles' file-system paths (``file_figures``)."""
    files = file_figures(log, known)
    if not files:
        raise ConfigError(f"darshan log {str(log.path)!r}: the job read and wrote no bytes through POSIX or MPI-IO; "
                          "give the log of a run that did its I/O")
    data = [f for f in files if f.data]
    if not data:
        raise ConfigError(f"darshan log {str(log.path)!r}: the job read and wrote only code, library and system files "
                          f"(such as {files[0].name}), no data of its own; give the log of a run that did its I/O")
    matter = files_that_matter(files)
    pool = [f for f in data if f.library != "posix"] or data   # the main files' kind: what the pattern describes
    top = matter[0]
    layer = "MPI-IO" if any(f.layer == "MPI-IO" for f in matter) else "POSIX"
    by_lib: dict[str, int] = {}
    for f in matter:
        by_lib[f.library] = by_lib.get(f.library, 0) + f.bytes
    library = max(by_lib, key=lambda k: (by_lib[k], k))
    written = sum(f.bytes_written for f in data)
    read = sum(f.bytes_read for f in data)
    starts = {op: min((f.counters.get(f"{f.layer.replace('-', '')}_F_{op.upper()}_START_TIMESTAMP", 0.0) or math.inf
                       for f in data), default=math.inf) for op in ("write", "read")}
    phases = sorted([op for op, b in (("write", written), ("read", read)) if b > 0], key=lambda op: starts[op])
    pool_written, pool_read = sum(f.bytes_written for f in pool), sum(f.bytes_read for f in pool)
    main_op = "read" if pool_read >= 2 * pool_written else "write"   # writes, unless reads clearly dominate
    main_bytes = pool_written if main_op == "write" else pool_read
    shared_bytes = sum(f.bytes for f in matter if f.shared)
    shared = log.nprocs == 1 or shared_bytes >= 0.5 * sum(f.bytes for f in matter)
    sizes = {op: phase_size(log, matter, data, op) for op in phases}
    coll = sum(f.counters.get(k, 0.0) for f in matter for k in ("MPIIO_COLL_WRITES", "MPIIO_COLL_READS",
                                                                "MPIIO_SPLIT_WRITES", "MPIIO_SPLIT_READS"))
    indep = sum(f.counters.get(k, 0.0) for f in matter for k in ("MPIIO_INDEP_WRITES", "MPIIO_INDEP_READS",
                                                                 "MPIIO_NB_WRITES", "MPIIO_NB_READS"))
    collective = layer == "MPI-IO" and coll > 0 and coll >= indep
    ops = sum(f.counters.get(f"POSIX_{main_op.upper()}S", 0.0) for f in matter)
    consec = sum(f.counters.get(f"POSIX_CONSEC_{main_op.upper()}S", 0.0) for f in matter)
    contiguous = ops == 0 or consec / ops >= 0.5
    recorded = nodes is not None
    pattern: dict[str, Any] = {
        "bytes_per_rank": max(1, math.ceil(main_bytes / log.nprocs)),
        "transfer_size": max(1, min(sizes[main_op][0] or main_bytes, main_bytes)),
        "layout": "contiguous" if contiguous else "strided",
        "file_mode": "shared" if shared else "fpp",
        "io_mode": "collective" if collective else "independent",
        "library": library,
        "phases": phases,
        "files": max(1, len([f for f in matter if f.shared or log.nprocs == 1])) if shared else 1,
        "all_collective": bool(collective and indep == 0),
    }
    return Derived(pattern, files, matter, {"write": written, "read": read}, sizes, coll, indep, recorded,
                   top.fs_type, top.mount, main_op)

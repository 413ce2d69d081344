"""Shared by the benchmark kernels: options, hints, timing, page-cache honesty and the JSON record."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn

from mpi4py import MPI

from autotune.kernels._spec import KERNELS, PHASES, size_arg
from autotune.measure import OMPIO_MCA, Evidence, count_aggregators, effect_of_settings, library_of, not_in_effect

MiB = 1024 * 1024


class UsageError(Exception):
    """A bad command-line option: reported on one line, exit status 2."""


class KernelParser(argparse.ArgumentParser):
    """argparse that raises instead of printing usage, and prints help from rank 0 only."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: error: {message}")

    def print_help(self, file: Any = None) -> None:
        if MPI.COMM_WORLD.Get_rank() == 0:
            super().print_help(file)


def make_parser(kernel: str) -> KernelParser:
    """Parser with the kernel's options as the kernel registry declares them, plus the launcher's ones."""
    spec = KERNELS.get(kernel)
    p = KernelParser(prog=f"autotune.kernels.{kernel}", description=spec.description)
    p.add_argument("--info", action="append", default=[], metavar="KEY=VALUE", help="an MPI_Info hint (repeatable)")
    p.add_argument("--info-file", metavar="PATH", help="JSON object of MPI_Info hints (--info wins)")
    p.add_argument("--dir", default=".", help="directory for the benchmark data (default: cwd)")
    p.add_argument("--keep", action="store_true", help="keep the data files")
    for arg in spec.options.values():
        arg.add_to(p)
    if spec.takes_alignment:
        p.add_argument("--alignment", type=size_arg, default=1, help="HDF5 alignment in bytes (1 = none)")
    return p


def _load_hints(args: argparse.Namespace) -> dict[str, str]:
    hints: dict[str, str] = {}
    if args.info_file:
        try:
            with open(args.info_file, encoding="utf-8") as fh:
                data = json.load(fh)
        except (OSError, ValueError) as err:
            raise UsageError(f"--info-file {args.info_file}: {err}") from None
        if not isinstance(data, dict) or not all(isinstance(k, str) for k in data):
            raise UsageError(f"--info-file {args.info_file}: expected a JSON object of key -> string")
        if any(not isinstance(v, (str, int)) or isinstance(v, bool) for v in data.values()):
            raise UsageError(f"--info-file {args.info_file}: values must be strings (or integers)")
        hints.update({k: str(v) for k, v in data.items()})
    for item in args.info:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--info {item!r}: expected KEY=VALUE")
        hints[key.strip()] = value.strip()
    return hints


@dataclass
class KernelContext:
    """One kernel run: parsed options, hints, the data files and the communicator."""

    kernel: str
    args: argparse.Namespace
    hints: dict[str, str]
    phases: tuple[str, ...]
    comm: MPI.Intracomm
    token: str
    files: list[str] = field(default_factory=list)
    hints_in_effect: dict[str, str] = field(default_factory=dict)
    did: dict[str, Any] = field(default_factory=dict)  # transfer size, layout, file mode... as done (rank 0's)
    write_bytes: list[int] | None = None  # per rank: bytes written in the timed write region (rank 0's copy)

    @property
    def rank(self) -> int:
        return self.comm.Get_rank()

    @property
    def size(self) -> int:
        return self.comm.Get_size()

    @property
    def sync(self) -> bool:
        return not self.args.no_sync

    def path(self, name: str) -> str:
        """A data file path unique to this run (same on every rank); deleted at the end unless --keep."""
        p = os.path.join(self.args.dir, f"autotune-{self.kernel}-{self.token}-{name}")
        if p not in self.files:
            self.files.append(p)
        return p

    def info(self) -> MPI.Info:
        """A fresh MPI.Info holding the requested hints (caller frees it)."""
        return MPI.Info.Create(self.hints) if self.hints else MPI.INFO_NULL

    def note_hints(self, in_effect: Mapping[str, str]) -> None:
        """Keep the hints of the first file opened (the write phase's when it runs)."""
        if not self.hints_in_effect:
            self.hints_in_effect = dict(in_effect)

    def timed(self, fn: Callable[[], None], writes: bool = False) -> float:
        """Seconds of ``fn`` on the slowest rank, between barriers; with ``writes``, each rank's bytes written
        inside it are kept too (``write_bytes``: the ranks that really wrote prove the aggregators in use)."""
        self.comm.Barrier()
        before = written_bytes() if writes else None
        t0 = MPI.Wtime()
        fn()
        seconds = self.comm.allreduce(MPI.Wtime() - t0, op=MPI.MAX)
        if before is not None:
            after = written_bytes()
            mine = after - before if after is not None and before >= 0 else -1
            counts = self.comm.gather(mine, root=0)
            self.write_bytes = None if counts is None or min(counts) < 0 else list(counts)
        return seconds

    def cleanup(self) -> None:
        """Delete this run's data files (rank 0; missing files are fine)."""
        if self.args.keep:
            return
        for p in self.files:
            try:
                os.remove(p)
            except OSError:
                continue


def written_bytes() -> int:
    """This process's bytes written so far (``wchar`` of ``/proc/self/io``: every write call), -1 if unknown."""
    try:
        with open("/proc/self/io", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("wchar:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        return -1
    return -1


_COMPONENT = re.compile(r"mca_(io|fcoll)_(\w+)\.so")


def loaded_components() -> list[str]:
    """Open MPI io/fcoll components this process loaded (``io:ompio``, ``fcoll:vulcan``) from /proc/self/maps."""
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as fh:
            found = {f"{m.group(1)}:{m.group(2)}" for m in _COMPONENT.finditer(fh.read())}
    except OSError:
        return []
    return sorted(found)


def mca_requested() -> dict[str, str]:
    """The MPI-IO MCA parameters this run was given (``OMPI_MCA_io``, ``OMPI_MCA_fcoll``, ``OMPI_MCA_io_ompio_*``...)."""
    return {k[len("OMPI_MCA_"):]: v for k, v in os.environ.items()
            if k.startswith("OMPI_MCA_") and k[len("OMPI_MCA_"):] in OMPIO_MCA | {"io"}}


def evidence(ctx: KernelContext) -> Evidence:
    """What this run shows about the settings in effect (rank 0)."""
    library = library_of(MPI.Get_library_version())
    reported = ctx.hints_in_effect
    real = library in ("mpich", "cray-mpich")  # ROMIO's File.Get_info there; Open MPI's only echoes the request
    shared = ctx.did.get("file_mode", "shared") == "shared" and ctx.args.io_mode == "collective"
    return Evidence(library, dict(reported), real, ctx.write_bytes, shared,
                    loaded_components() if library == "openmpi" else None)


def info_dict(info: MPI.Info) -> dict[str, str]:
    """All keys of an MPI.Info as a dict (frees the info)."""
    out = {info.Get_nthkey(i): info.Get(info.Get_nthkey(i)) or "" for i in range(info.Get_nkeys())}
    info.Free()
    return out


def read_shift(comm: MPI.Intracomm) -> tuple[int, list[str]]:
    """Rank shift for the read phase (ranks per node, so data comes from another node) and node names."""
    names = comm.allgather(MPI.Get_processor_name())
    per_node = max(names.count(n) for n in set(names))
    shift = per_node if per_node % comm.Get_size() else 1
    return shift % max(comm.Get_size(), 1), names


def cache_status(names: Sequence[str], shift: int) -> tuple[bool, str]:
    """Whether reading rank ``(r + shift) % size``'s data defeats the client page cache, and why."""
    size = len(names)
    nodes = len(set(names))
    if size == 1:
        return False, "one rank: it reads back its own data, page cache not defeated"
    if nodes == 1:
        return False, f"all ranks on one node ({names[0]}): page cache shared"
    same = [r for r in range(size) if names[r] == names[(r + shift) % size]]
    if same:
        return False, f"{len(same)} of {size} ranks read data written on their own node"
    return True, f"each rank reads data written on another node ({nodes} nodes); server-side caches not defeated"


def _phase(nbytes: int, seconds: float) -> dict[str, Any]:
    return {"bytes": nbytes, "seconds": seconds, "bandwidth_mib_s": nbytes / MiB / seconds if seconds > 0 else None}


def build_record(ctx: KernelContext, nbytes: int, times: Mapping[str, float], options: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON record rank 0 prints (see the package docstring)."""
    shift, names = read_shift(ctx.comm)
    phases: dict[str, dict[str, Any]] = {}
    metrics: dict[str, Any] = {}
    for name, secs in times.items():
        phases[name] = _phase(nbytes, secs)
        metrics[f"{name}_bandwidth_mib_s"] = phases[name]["bandwidth_mib_s"]
        metrics[f"{name}_seconds"] = secs
    if "read" in phases:
        defeated, note = cache_status(names, shift)
        phases["read"].update(cache_defeated=defeated, cache_note=note, read_shift=shift)
    total = sum(times.values())
    metrics["seconds"] = total
    metrics["bandwidth_mib_s"] = nbytes * len(times) / MiB / total if total > 0 else None
    in_effect = ctx.hints_in_effect
    ev = evidence(ctx)
    verification = effect_of_settings(ctx.hints, mca_requested(), ev)
    return {
        "autotune_record": 1, "kernel": ctx.kernel, "ranks": ctx.size, "nodes": len(set(names)),
        "bytes": nbytes, "phases": phases, "metrics": metrics,
        "hints_requested": dict(ctx.hints), "hints_in_effect": in_effect,
        "aggregators": count_aggregators(in_effect), "library": ev.library,
        "write_bytes_per_rank": ctx.write_bytes, "writers": ev.writers, "mpi_components": ev.components,
        "verification": verification, "hints_not_in_effect": not_in_effect(verification),
        "sync": ctx.sync, "options": dict(options),
        "pattern": {"bytes_per_rank": nbytes // ctx.size, "phases": list(times), "io_mode": ctx.args.io_mode,
                    "sync": ctx.sync, **ctx.did},
    }


def _die_usage(message: str) -> NoReturn:
    """One line on stderr from rank 0, then a clean exit 2 on every rank (no MPI_Abort banner)."""
    if MPI.COMM_WORLD.Get_rank() == 0:
        print(message, file=sys.stderr, flush=True)
    MPI.Finalize()
    os._exit(2)


def _usage_line(parser: KernelParser, err: UsageError) -> str:
    msg = " ".join(str(err).split())
    return msg if msg.startswith(parser.prog) else f"{parser.prog}: error: {msg}"


def main(kernel: str, parser: KernelParser, timed_phases: Callable[[KernelContext], tuple[int, dict[str, float]]],
         argv: Sequence[str] | None = None) -> None:
    """Parse, run ``timed_phases`` (returns bytes per phase and phase seconds), print the record, clean up."""
    comm = MPI.COMM_WORLD
    try:
        args = parser.parse_args(argv)
        phases = tuple(p.strip() for p in args.phases.split(",") if p.strip())
        bad = [p for p in phases if p not in PHASES]
        if bad or not phases or len(set(phases)) != len(phases):
            raise UsageError(f"{parser.prog}: error: --phases {args.phases!r}: expected a subset of write,read")
        if not os.path.isdir(args.dir):
            raise UsageError(f"{parser.prog}: error: --dir {args.dir!r} is not a directory")
        hints = _load_hints(args)
    except UsageError as err:
        _die_usage(_usage_line(parser, err))
    token = comm.bcast(uuid.uuid4().hex[:12] if comm.Get_rank() == 0 else None, root=0)
    ctx = KernelContext(kernel, args, hints, phases, comm, token)
    try:
        nbytes, times = timed_phases(ctx)
        record = build_record(ctx, nbytes, times, {k: v for k, v in vars(args).items()
                                                   if k not in ("info", "info_file")})
    except UsageError as err:
        _die_usage(_usage_line(parser, err))
    except Exception as err:  # noqa: BLE001 - any failure: clean up, one line, abort the whole job
        ctx.cleanup()
        print(f"{parser.prog}: error on rank {comm.Get_rank()}: {type(err).__name__}: {err}",
              file=sys.stderr, flush=True)
        comm.Abort(1)
    comm.Barrier()
    if comm.Get_rank() == 0:
        ctx.cleanup()
        print(json.dumps(record, sort_keys=False), flush=True)

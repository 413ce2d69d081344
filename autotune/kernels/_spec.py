"""The built-in kernels, declared once: arguments with defaults and checks, the I/O pattern, the command line.

``KERNELS.get("ior")`` is a ``Kernel``. The campaign validates ``app.args`` and declares the pattern with
it, the launchers build the command line with it, and each kernel module builds its argparse options from
it, so what the campaign believes a kernel does and what the kernel does cannot drift apart. Pure Python:
importing this never imports MPI.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from autotune._registry import NOT_ONE_OF, Registry
from autotune.errors import AutotuneError, ConfigError
from autotune.units import parse_size

PHASES = ("write", "read")
MAX_BYTES_PER_RANK = 1 << 40      # 1 TiB per rank and phase: more is a typo, not a benchmark
MAX_COUNT = 1 << 40


def size_arg(text: str) -> int:
    """argparse type: a positive size such as ``4MiB``."""
    try:
        n = parse_size(text)
    except AutotuneError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    if n <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be a positive size")
    return n


def count_arg(text: str) -> int:
    """argparse type: a positive count; ``64k``/``64Ki`` mean 65536."""
    return size_arg(text + "B" if text.strip().lower().endswith(("ki", "mi", "gi")) else text)


@dataclass(frozen=True)
class KernelOption:
    """One kernel option: ``kind`` is size, count, choice, phases or flag; ``default`` None means unset."""

    name: str
    kind: str
    default: Any
    help: str
    choices: tuple[str, ...] = ()

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def value(self, raw: Any, where: str) -> Any:
        """The checked value of ``raw`` from a campaign file; a one-line ConfigError otherwise."""
        if self.kind in ("size", "count"):
            text = raw.strip() if isinstance(raw, str) else raw
            if self.kind == "count" and isinstance(text, str) and text.lower().endswith(("ki", "mi", "gi")):
                text += "B"
            n = parse_size(text, where)
            if n < 1 or n > MAX_COUNT:
                raise ConfigError(f"{where}: {raw!r} is not a positive {self.kind} of at most {MAX_COUNT}")
            return n
        if self.kind == "choice":
            if raw not in self.choices:
                raise ConfigError(f"{where}: {raw!r} is not one of {', '.join(self.choices)}")
            return str(raw)
        if self.kind == "phases":
            items = [p.strip() for p in raw.split(",")] if isinstance(raw, str) else raw
            if not isinstance(items, list) or not items or any(p not in PHASES for p in items) \
                    or len(set(items)) != len(items):
                raise ConfigError(f"{where}: {raw!r} is not a list of distinct phases from write, read")
            return [p for p in PHASES if p in items]  # the kernels always write before they read
        if not isinstance(raw, bool):
            raise ConfigError(f"{where}: {raw!r} is not true or false")
        return raw

    def cli(self, value: Any) -> list[str]:
        """The command-line words for ``value`` (nothing for an unset option or a false flag)."""
        if value is None or value is False:
            return []
        if value is True:
            return [self.flag]
        if isinstance(value, list):
            return [self.flag, ",".join(str(v) for v in value)]
        return [self.flag, str(value)]

    def add_to(self, parser: argparse.ArgumentParser) -> None:
        """The same option on the kernel's own argparse parser."""
        if self.kind == "flag":
            parser.add_argument(self.flag, action="store_true", help=self.help)
        elif self.kind == "choice":
            parser.add_argument(self.flag, choices=self.choices, default=self.default, help=self.help)
        elif self.kind == "phases":
            parser.add_argument(self.flag, default=",".join(self.default), help=self.help)
        else:
            parser.add_argument(self.flag, type=size_arg if self.kind == "size" else count_arg,
                                default=self.default, help=self.help)


COMMON = (
    KernelOption("phases", "phases", ["write", "read"], "comma-separated subset of write,read"),
    KernelOption("io_mode", "choice", "collective", "collective or independent MPI-IO calls", ("collective", "independent")),
    KernelOption("no_sync", "flag", False, "no MPI_File_sync inside the timed write"),
)

Pattern = Callable[[Mapping[str, Any], int], dict[str, Any]]


@dataclass(frozen=True)
class Kernel:
    """A built-in kernel: its options, the pattern those options produce on ``ranks`` ranks, its argv.

    Contract (checked by ``autotune.testing.contracts``): registered under its ``name``; every ``KernelOption`` has a
    help text and its default passes its own check; the defaults declare a pattern with positive sizes.
    """

    name: str
    description: str
    args: tuple[KernelOption, ...]
    declare: Pattern              # resolved args, ranks -> IOPattern fields (per rank and phase)
    takes_alignment: bool = False  # HDF5 kernels take --alignment from the configuration

    @property
    def module(self) -> str:
        return f"autotune.kernels.{self.name}"

    @property
    def options(self) -> dict[str, KernelOption]:
        return {a.name: a for a in (*self.args, *COMMON)}

    def resolve(self, args: Mapping[str, Any], ranks: int, where: str = "app.args") -> dict[str, Any]:
        """``args`` checked (unknown names, values, sizes) with every default filled in."""
        options = self.options
        unknown = sorted(str(k) for k in args if k not in options)
        if unknown:
            raise ConfigError(f"{where}: unknown argument {unknown[0]!r} of kernel {self.name} "
                              f"(allowed: {', '.join(sorted(options))})")
        out = {name: (arg.value(args[name], f"{where}.{name}") if name in args and args[name] is not None
                      else arg.default) for name, arg in options.items()}
        fields = self.declare(out, ranks)  # checks the combination (e.g. block vs transfer size)
        per_rank = fields["bytes_per_rank"]
        if per_rank > MAX_BYTES_PER_RANK:
            raise ConfigError(f"{where}: {per_rank} bytes per rank and phase is more than {MAX_BYTES_PER_RANK} (1 TiB)")
        return out

    def pattern(self, args: Mapping[str, Any], ranks: int, where: str = "app.args") -> dict[str, Any]:
        """The I/O pattern (``IOPattern`` fields) the kernel produces with ``args`` on ``ranks`` ranks."""
        resolved = self.resolve(args, ranks, where)
        return {**self.declare(resolved, ranks), "phases": list(resolved["phases"]), "io_mode": resolved["io_mode"],
                "sync": not resolved["no_sync"]}  # --no-sync: the flush is outside the timed region

    def argv(self, args: Mapping[str, Any], python: str, data_dir: str, info_file: str,
             alignment: int | None = None) -> list[str]:
        """``python -m mpi4py -m autotune.kernels.NAME`` with every option spelled out."""
        options = self.options
        argv = [python, "-m", "mpi4py", "-m", self.module]
        for name, value in args.items():
            argv += options[name].cli(value)
        argv += ["--dir", data_dir, "--info-file", info_file]
        if alignment and self.takes_alignment:
            argv += ["--alignment", str(alignment)]
        return argv


def _ior(a: Mapping[str, Any], ranks: int) -> dict[str, Any]:
    block, xfer = a["block_size"], a["transfer_size"]
    if block % xfer:
        raise ConfigError(f"app.args.block_size: {block} is not a multiple of transfer_size ({xfer})")
    fpp = a["file_mode"] == "fpp"
    return {"bytes_per_rank": block * a["segments"], "transfer_size": xfer, "file_mode": a["file_mode"],
            "layout": "contiguous" if fpp else a["layout"], "library": "mpiio", "block_size": block}


def shape_for(nbytes: int) -> tuple[int, int]:
    """A near-square (rows, cols) float64 shape of at least ``nbytes``; cols a power of two."""
    n = max(nbytes // 8, 1)
    cols = 1 << max(int(math.log2(math.sqrt(n))), 0)
    return math.ceil(n / cols), cols


def h5write_shape(a: Mapping[str, Any]) -> tuple[int, int]:
    """(rows, cols) of the h5write array: --rows/--cols, else near-square from --size (16 MiB)."""
    if (a.get("rows") is None) != (a.get("cols") is None):
        raise ConfigError("app.args: rows and cols go together")
    if a.get("rows") is not None:
        if a.get("size") is not None:
            raise ConfigError("app.args: give either size or rows/cols, not both")
        return int(a["rows"]), int(a["cols"])
    return shape_for(a.get("size") or H5WRITE_SIZE)


H5WRITE_SIZE = 16 << 20


def _h5write(a: Mapping[str, Any], ranks: int) -> dict[str, Any]:
    rows, cols = h5write_shape(a)
    column = a["decomposition"] == "column"
    split = cols if column else rows
    if split < ranks:
        raise ConfigError(f"app.args: {split} {a['decomposition']}s cannot be split over {ranks} ranks")
    # one write call per rank (rank 0's block); a column block is one contiguous piece per row of the array
    call = rows * (cols // ranks) * 8 if column else (rows // ranks) * cols * 8
    return {"bytes_per_rank": rows * cols * 8 // ranks, "transfer_size": call,
            "piece_size": (cols // ranks) * 8 if column else 0,
            "layout": "strided" if column else "contiguous", "file_mode": "shared", "library": "hdf5"}


VPIC_BYTES_PER_PARTICLE = 32   # x, y, z, px, py, pz float32 and id1, id2 int32
VPIC_VARIABLE_BYTES = 4


def _vpic(a: Mapping[str, Any], ranks: int) -> dict[str, Any]:
    n = a["particles_per_rank"]
    return {"bytes_per_rank": VPIC_BYTES_PER_PARTICLE * n, "transfer_size": VPIC_VARIABLE_BYTES * n,
            "layout": "contiguous", "file_mode": "shared", "library": "hdf5"}


KERNELS: Registry[Kernel] = Registry("kernel", "app.kernel", NOT_ONE_OF, base=Kernel)  # entries: Kernel instances
KERNELS.register("ior", Kernel("ior", "IOR-like MPI-IO write/read benchmark", (
    KernelOption("block_size", "size", 4 << 20, "bytes per rank per segment"),
    KernelOption("transfer_size", "size", 1 << 20, "bytes per I/O call"),
    KernelOption("segments", "count", 1, "number of segments"),
    KernelOption("file_mode", "choice", "shared", "one shared file or a file per process", ("shared", "fpp")),
    KernelOption("layout", "choice", "contiguous", "strided: transfer-sized chunks of all ranks interleaved (shared file only)",
                 ("contiguous", "strided")),
), _ior))
KERNELS.register("h5write", Kernel("h5write", "h5py parallel 2-D float64 array write/read benchmark", (
    KernelOption("rows", "count", None, "array rows (with --cols)"),
    KernelOption("cols", "count", None, "array columns (with --rows)"),
    KernelOption("size", "size", None, "array size instead of --rows/--cols (default 16MiB)"),
    KernelOption("decomposition", "choice", "column", "row or column blocks per rank", ("row", "column")),
), _h5write, takes_alignment=True))
KERNELS.register("vpic", Kernel("vpic", "VPIC-IO-like HDF5 particle write/read benchmark", (
    KernelOption("particles_per_rank", "count", 131072, "particles per rank, e.g. 131072 or 128Ki (32 bytes each)"),
), _vpic, takes_alignment=True))

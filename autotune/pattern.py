"""An application's declared I/O pattern: what the performance model and the system rules reason about."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

from autotune._yaml import check_keys, expect, positive_int
from autotune.errors import ConfigError
from autotune.units import parse_size

LAYOUTS = ("contiguous", "strided")
FILE_MODES = ("shared", "fpp")
IO_MODES = ("collective", "independent")
LIBRARIES = ("mpiio", "hdf5", "pnetcdf", "posix")
OPS = ("write", "read")
MAX_RANKS = 10_000_000  # more MPI ranks than any machine has: a typo

_KEYS = frozenset({
    "ranks", "nodes", "ranks_per_node", "bytes_per_rank", "transfer_size", "layout", "file_mode",
    "io_mode", "library", "phases", "all_collective", "files", "sync", "piece_size", "block_size",
})


@dataclass(frozen=True)
class IOPattern:
    """How an application does its I/O (per phase): enough for the model and the constraints.

    ``bytes_per_rank`` is what each rank writes (or reads) in one phase; ``transfer_size`` the size of
    each call; ``files`` how many files one phase writes when ``file_mode`` is ``shared`` (e.g. one
    restart file), ignored for file-per-process.
    """

    ranks: int
    bytes_per_rank: int
    nodes: int = 1
    transfer_size: int = 1 << 20
    layout: str = "contiguous"
    file_mode: str = "shared"
    io_mode: str = "collective"
    library: str = "mpiio"
    phases: tuple[str, ...] = ("write",)
    files: int = 1
    all_collective: bool = field(default=False)
    sync: bool = True          # the timed write region ends with a sync (kernels: unless --no-sync)
    piece_size: int = 0        # contiguous bytes per piece of a strided transfer (0: the transfer size)
    block_size: int = 0        # contiguous bytes per rank per segment (IOR's -b; 0: all of bytes_per_rank)

    def __post_init__(self) -> None:
        if self.ranks < 1 or self.ranks > MAX_RANKS:
            raise ConfigError(f"pattern.ranks: {self.ranks} must be between 1 and {MAX_RANKS}")
        if self.nodes < 1 or self.nodes > self.ranks:
            raise ConfigError(f"pattern.nodes: {self.nodes} must be between 1 and ranks ({self.ranks})")
        if self.bytes_per_rank < 1:
            raise ConfigError(f"pattern.bytes_per_rank: {self.bytes_per_rank} must be > 0")
        if self.piece_size < 0 or self.piece_size > self.transfer_size:
            raise ConfigError(f"pattern.piece_size: {self.piece_size} must be between 1 and transfer_size"
                              f" ({self.transfer_size})")
        if self.block_size < 0 or self.block_size > self.bytes_per_rank:
            raise ConfigError(f"pattern.block_size: {self.block_size} must be between 1 and bytes_per_rank"
                              f" ({self.bytes_per_rank})")
        if self.transfer_size < 1:
            raise ConfigError(f"pattern.transfer_size: {self.transfer_size} must be > 0")
        for name, value, allowed in (
            ("layout", self.layout, LAYOUTS), ("file_mode", self.file_mode, FILE_MODES),
            ("io_mode", self.io_mode, IO_MODES), ("library", self.library, LIBRARIES),
        ):
            if value not in allowed:
                raise ConfigError(f"pattern.{name}: {value!r} is not one of {', '.join(allowed)}")
        for op in self.phases:
            if op not in OPS:
                raise ConfigError(f"pattern.phases: {op!r} is not one of {', '.join(OPS)}")
        if not self.phases:
            raise ConfigError("pattern.phases: at least one phase (write or read) is required")

    @property
    def ranks_per_node(self) -> int:
        return math.ceil(self.ranks / self.nodes)

    @property
    def piece(self) -> int:
        """Contiguous bytes per piece: ``piece_size``, or the whole transfer when unset or contiguous."""
        return self.piece_size if self.piece_size and self.layout == "strided" else self.transfer_size

    @property
    def block(self) -> int:
        """Contiguous bytes of one rank in the file: one segment's block, or all its bytes when unset."""
        return self.block_size or self.bytes_per_rank

    @property
    def data_bytes(self) -> int:
        """Bytes one phase moves over all ranks (the size of the shared file, or of all files)."""
        return self.ranks * self.bytes_per_rank

    @property
    def written_bytes(self) -> int:
        """Bytes all write phases leave on the target (one phase's bytes when the app only reads)."""
        return self.data_bytes * max(1, self.phases.count("write")) if "write" in self.phases else self.data_bytes

    def bb_nodes(self, granularity: int) -> int:
        """The default burst-buffer allocation: the fewest grains of ``granularity`` bytes that hold what it writes."""
        return max(1, math.ceil(self.written_bytes / granularity))

    @property
    def is_all_collective(self) -> bool:
        """True when every MPI-IO access is collective: required by Cray's shared lock mode."""
        return self.all_collective or (self.io_mode == "collective" and self.library == "mpiio")

    def with_(self, **changes: Any) -> IOPattern:
        return replace(self, **changes)

    def as_dict(self) -> dict[str, Any]:
        return {
            "ranks": self.ranks, "nodes": self.nodes, "bytes_per_rank": self.bytes_per_rank,
            "transfer_size": self.transfer_size, "layout": self.layout, "file_mode": self.file_mode,
            "io_mode": self.io_mode, "library": self.library, "phases": list(self.phases),
            "files": self.files, "all_collective": self.is_all_collective,
            "sync": self.sync, "piece_size": self.piece, "block_size": self.block,
            "data_bytes": self.data_bytes, "ranks_per_node": self.ranks_per_node,
        }

    @classmethod
    def from_dict(cls, data: Any, where: str = "pattern") -> IOPattern:
        d = check_keys(data, _KEYS, where, required=("ranks", "bytes_per_rank"))
        ranks = positive_int(d["ranks"], f"{where}.ranks")
        if "nodes" in d:
            nodes = positive_int(d["nodes"], f"{where}.nodes")
        elif "ranks_per_node" in d:
            nodes = math.ceil(ranks / positive_int(d["ranks_per_node"], f"{where}.ranks_per_node"))
        else:
            nodes = 1
        phases = d.get("phases", ["write"])
        if isinstance(phases, str):
            phases = [phases]
        expect(phases, list, f"{where}.phases", "a list of phases (write, read)")
        return cls(
            ranks=ranks,
            nodes=nodes,
            bytes_per_rank=parse_size(d["bytes_per_rank"], f"{where}.bytes_per_rank"),
            transfer_size=parse_size(d.get("transfer_size", 1 << 20), f"{where}.transfer_size"),
            layout=str(d.get("layout", "contiguous")),
            file_mode=str(d.get("file_mode", "shared")),
            io_mode=str(d.get("io_mode", "collective")),
            library=str(d.get("library", "mpiio")),
            phases=tuple(str(p) for p in phases),
            files=positive_int(d.get("files", 1), f"{where}.files"),
            all_collective=bool(expect(d.get("all_collective", False), bool, f"{where}.all_collective", "true or false")),
            sync=bool(expect(d.get("sync", True), bool, f"{where}.sync", "true or false")),
            piece_size=parse_size(d.get("piece_size", 0), f"{where}.piece_size"),
            block_size=parse_size(d.get("block_size", 0), f"{where}.block_size"),
        )

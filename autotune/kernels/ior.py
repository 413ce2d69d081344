"""IOR-like MPI-IO kernel: block/transfer/segments, shared file or file per process, explicit offsets.

    mpiexec -n 4 python -m mpi4py -m autotune.kernels.ior --block-size 4MiB --transfer-size 1MiB

Only contiguous byte buffers at explicit offsets (no derived datatypes, no file views: those
crash MPICH 4.0.2's ROMIO with mpi4py 4).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from mpi4py import MPI

from autotune.kernels._common import KernelContext, KernelParser, UsageError, info_dict, main, make_parser, read_shift


def _parser() -> KernelParser:
    return make_parser("ior")


def offsets(owner: int, nprocs: int, block: int, xfer: int, segments: int, layout: str) -> Iterator[int]:
    """File offsets of ``owner``'s transfers (``nprocs`` = ranks sharing the file)."""
    for s in range(segments):
        base = s * nprocs * block
        for t in range(block // xfer):
            if layout == "strided":
                yield base + t * nprocs * xfer + owner * xfer
            else:
                yield base + owner * block + t * xfer


def _fill(owner: int) -> int:
    return (owner * 37 + 11) % 251


def _io(ctx: KernelContext, owner: int, write: bool) -> None:
    """Open, write (or read and check) ``owner``'s data, sync, close: the timed region."""
    a = ctx.args
    shared = a.file_mode == "shared"
    comm = ctx.comm if shared else MPI.COMM_SELF
    name = ctx.path("shared.dat") if shared else ctx.path(f"rank{owner:05d}.dat")
    amode = (MPI.MODE_CREATE | MPI.MODE_WRONLY) if write else MPI.MODE_RDONLY
    info = ctx.info()
    fh = MPI.File.Open(comm, name, amode, info)
    if info != MPI.INFO_NULL:
        info.Free()
    ctx.note_hints(info_dict(fh.Get_info()))
    buf = np.full(a.transfer_size, _fill(owner), dtype=np.uint8) if write else np.empty(a.transfer_size, np.uint8)
    nprocs, idx = (ctx.size, owner) if shared else (1, 0)
    op = (fh.Write_at_all if write else fh.Read_at_all) if a.io_mode == "collective" else \
        (fh.Write_at if write else fh.Read_at)
    for off in offsets(idx, nprocs, a.block_size, a.transfer_size, a.segments, a.layout):
        op(off, buf)
        if not write and (buf[0] != _fill(owner) or buf[-1] != _fill(owner)):
            raise RuntimeError(f"read back wrong data at offset {off} of {name}")
    if write and ctx.sync:
        fh.Sync()
    fh.Close()


def timed_phases(ctx: KernelContext) -> tuple[int, dict[str, float]]:
    """Write then read (another rank's data); returns bytes per phase and phase seconds."""
    a = ctx.args
    if a.block_size % a.transfer_size:
        raise UsageError(f"--block-size {a.block_size} is not a multiple of --transfer-size {a.transfer_size}")
    if a.file_mode == "fpp":
        ctx.args.layout = "contiguous"
    ctx.did = {"transfer_size": a.transfer_size, "piece_size": a.transfer_size, "layout": a.layout,
               "file_mode": a.file_mode, "library": "mpiio"}
    for r in range(ctx.size):  # register every file so rank 0 cleans them all up
        ctx.path("shared.dat" if a.file_mode == "shared" else f"rank{r:05d}.dat")
    times: dict[str, float] = {}
    seconds = ctx.timed(lambda: _io(ctx, ctx.rank, write=True), writes=True)
    if "write" in ctx.phases:
        times["write"] = seconds
    if "read" in ctx.phases:
        shift, _ = read_shift(ctx.comm)
        times["read"] = ctx.timed(lambda: _io(ctx, (ctx.rank + shift) % ctx.size, write=False))
    return a.block_size * a.segments * ctx.size, times


if __name__ == "__main__":
    main("ior", _parser(), timed_phases)

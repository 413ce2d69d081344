"""h5py 2-D float64 array write/read (NERSC Cori I/O talk), row or column blocks per rank, on the mpio driver.

    mpiexec -n 4 python -m mpi4py -m autotune.kernels.h5write --size 64MiB --decomposition column

Column blocks are strided in the file (one piece per row per rank): the case collective
buffering is for.
"""

from __future__ import annotations

import numpy as np

from autotune.kernels import _h5
from autotune.kernels._common import KernelContext, KernelParser, UsageError, main, make_parser, read_shift
from autotune.kernels._spec import H5WRITE_SIZE, shape_for

DSET = "data"


def _parser() -> KernelParser:
    return make_parser("h5write")


def block(n: int, nprocs: int, rank: int) -> slice:
    """Rank's share of ``n`` (the last rank takes the remainder, as in the NERSC Cori I/O talk)."""
    step = n // nprocs
    return slice(rank * step, n if rank == nprocs - 1 else (rank + 1) * step)


def _selection(ctx: KernelContext, rows: int, cols: int, owner: int) -> tuple[slice, slice]:
    if ctx.args.decomposition == "row":
        return block(rows, ctx.size, owner), slice(0, cols)
    return slice(0, rows), block(cols, ctx.size, owner)


def _extent(sel: tuple[slice, slice]) -> tuple[int, int]:
    return sel[0].stop - sel[0].start, sel[1].stop - sel[1].start


def _write(ctx: KernelContext, path: str, shape: tuple[int, int], sel: tuple[slice, slice], data: np.ndarray) -> None:
    f = _h5.open_file(ctx, path, "w", ctx.args.alignment)
    dset = f.create_dataset(DSET, shape, dtype="f8")
    if ctx.args.io_mode == "collective":
        with dset.collective:
            dset[sel] = data
    else:
        dset[sel] = data
    if ctx.sync:
        _h5.sync(f)
    f.close()


def _read(ctx: KernelContext, path: str, sel: tuple[slice, slice], buf: np.ndarray) -> None:
    f = _h5.open_file(ctx, path, "r", ctx.args.alignment)
    dset = f[DSET]
    if ctx.args.io_mode == "collective":
        with dset.collective:
            dset.read_direct(buf, source_sel=sel)
    else:
        dset.read_direct(buf, source_sel=sel)
    f.close()


def timed_phases(ctx: KernelContext) -> tuple[int, dict[str, float]]:
    """Write the array, then read another rank's block; returns bytes per phase and phase seconds."""
    a = ctx.args
    if (a.rows is None) != (a.cols is None):
        raise UsageError("--rows and --cols go together")
    if a.rows is not None and a.size is not None:
        raise UsageError("give either --size or --rows/--cols, not both")
    rows, cols = (a.rows, a.cols) if a.rows is not None else shape_for(a.size or H5WRITE_SIZE)
    split = rows if a.decomposition == "row" else cols
    if split < ctx.size:
        raise UsageError(f"{split} {a.decomposition}s cannot be split over {ctx.size} ranks")
    a.rows, a.cols = rows, cols
    path = ctx.path("array.h5")
    mine = _selection(ctx, rows, cols, ctx.rank)
    data = np.full(_extent(mine), ctx.rank + 1.0)
    piece = _extent(mine)[1] * 8 if a.decomposition == "column" else data.nbytes  # contiguous bytes per piece
    ctx.did = {"transfer_size": data.nbytes, "piece_size": piece, "file_mode": "shared", "library": "hdf5",
               "layout": "strided" if a.decomposition == "column" else "contiguous"}
    times: dict[str, float] = {}
    seconds = ctx.timed(lambda: _write(ctx, path, (rows, cols), mine, data), writes=True)
    if "write" in ctx.phases:
        times["write"] = seconds
    if "read" in ctx.phases:
        shift, _ = read_shift(ctx.comm)
        owner = (ctx.rank + shift) % ctx.size
        theirs = _selection(ctx, rows, cols, owner)
        buf = np.empty(_extent(theirs))
        times["read"] = ctx.timed(lambda: _read(ctx, path, theirs, buf))
        if buf.size and (buf.flat[0] != owner + 1.0 or buf.flat[-1] != owner + 1.0):
            raise RuntimeError(f"read back wrong data from rank {owner}'s block")
    return rows * cols * 8, times


if __name__ == "__main__":
    main("h5write", _parser(), timed_phases)

"""h5py 2-D float64 array write/read (NERSC Cori I/O talk), row or column blocks per rank, on the mpio driver.

    mpiexec -n 4 python -m mpi4py -m autotune.kernels.h5write --size 64MiB --decomposition column

Column blocks are strided in the file (one piece per row per rank): the case collective
buffering is for.
"""

from __future__ import annotations

import numpy as np

from autotune.kernels import _h5
from autotune.kernels._common import KernelParser, Run, UsageError, main, make_parser, read_shift
from autotune.kernels._spec import H5WRITE_SIZE, shape_for

DSET = "data"


def _parser() -> KernelParser:
    return make_parser("h5write")


def block(n: int, nprocs: int, rank: int) -> slice:
    """Rank's share of ``n`` (the last rank takes the remainder, as in the NERSC Cori I/O talk)."""
    step = n // nprocs
    return slice(rank * step, n if rank == nprocs - 1 else (rank + 1) * step)


def _selection(run: Run, rows: int, cols: int, owner: int) -> tuple[slice, slice]:
    if run.args.decomposition == "row":
        return block(rows, run.size, owner), slice(0, cols)
    return slice(0, rows), block(cols, run.size, owner)


def _extent(sel: tuple[slice, slice]) -> tuple[int, int]:
    return sel[0].stop - sel[0].start, sel[1].stop - sel[1].start


def _write(run: Run, path: str, shape: tuple[int, int], sel: tuple[slice, slice], data: np.ndarray) -> None:
    f = _h5.open_file(run, path, "w", run.args.alignment)
    dset = f.create_dataset(DSET, shape, dtype="f8")
    if run.args.io_mode == "collective":
        with dset.collective:
            dset[sel] = data
    else:
        dset[sel] = data
    if run.sync:
        _h5.sync(f)
    f.close()


def _read(run: Run, path: str, sel: tuple[slice, slice], buf: np.ndarray) -> None:
    f = _h5.open_file(run, path, "r", run.args.alignment)
    dset = f[DSET]
    if run.args.io_mode == "collective":
        with dset.collective:
            dset.read_direct(buf, source_sel=sel)
    else:
        dset.read_direct(buf, source_sel=sel)
    f.close()


def body(run: Run) -> tuple[int, dict[str, float]]:
    """Write the array, then read another rank's block; returns bytes per phase and phase seconds."""
    a = run.args
    if (a.rows is None) != (a.cols is None):
        raise UsageError("--rows and --cols go together")
    if a.rows is not None and a.size is not None:
        raise UsageError("give either --size or --rows/--cols, not both")
    rows, cols = (a.rows, a.cols) if a.rows is not None else shape_for(a.size or H5WRITE_SIZE)
    split = rows if a.decomposition == "row" else cols
    if split < run.size:
        raise UsageError(f"{split} {a.decomposition}s cannot be split over {run.size} ranks")
    a.rows, a.cols = rows, cols
    path = run.path("array.h5")
    mine = _selection(run, rows, cols, run.rank)
    data = np.full(_extent(mine), run.rank + 1.0)
    piece = _extent(mine)[1] * 8 if a.decomposition == "column" else data.nbytes  # contiguous bytes per piece
    run.did = {"transfer_size": data.nbytes, "piece_size": piece, "file_mode": "shared", "library": "hdf5",
               "layout": "strided" if a.decomposition == "column" else "contiguous"}
    times: dict[str, float] = {}
    seconds = run.timed(lambda: _write(run, path, (rows, cols), mine, data), writes=True)
    if "write" in run.phases:
        times["write"] = seconds
    if "read" in run.phases:
        shift, _ = read_shift(run.comm)
        owner = (run.rank + shift) % run.size
        theirs = _selection(run, rows, cols, owner)
        buf = np.empty(_extent(theirs))
        times["read"] = run.timed(lambda: _read(run, path, theirs, buf))
        if buf.size and (buf.flat[0] != owner + 1.0 or buf.flat[-1] != owner + 1.0):
            raise RuntimeError(f"read back wrong data from rank {owner}'s block")
    return rows * cols * 8, times


if __name__ == "__main__":
    main("h5write", _parser(), body)

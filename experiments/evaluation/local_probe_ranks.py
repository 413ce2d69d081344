"""The MPI side of experiments/evaluation/local_probe.py, run under mpiexec: one measurement, its value printed by rank 0.

    mpiexec -n N python -m experiments.evaluation.local_probe_ranks DIR REPS {barrier|p2p|mpiio|twophase|h5K}
"""

from __future__ import annotations

import os
import statistics
import sys
from collections.abc import Callable

import numpy as np
from mpi4py import MPI

from autotune.kernels.siteprobe import COMM, timed
from autotune.kernels.siteprobe import measure as measure_comm


def mpiio_file(d: str) -> Callable[[int], None]:
    """A shared file's open, sync and close, no data."""
    def run(i: int) -> None:
        fh = MPI.File.Open(COMM, os.path.join(d, f"m{i}.dat"), MPI.MODE_CREATE | MPI.MODE_WRONLY)
        fh.Sync()
        fh.Close()
    return run


def two_phase(d: str, i: int) -> float:
    """Seconds of one collective-buffered call of 4 bytes per rank (mean of 10, the file already open)."""
    info = MPI.Info.Create()
    info.Set("romio_cb_write", "enable")
    fh = MPI.File.Open(COMM, os.path.join(d, f"c{i}.dat"), MPI.MODE_CREATE | MPI.MODE_WRONLY, info)
    buf = np.ones(4, np.uint8)
    COMM.Barrier()
    t0 = MPI.Wtime()
    for k in range(10):
        fh.Write_at_all((k * COMM.size + COMM.rank) * 4, buf)
    dt = MPI.Wtime() - t0
    fh.Close()
    info.Free()
    return dt / 10


def h5(d: str, datasets: int) -> Callable[[int], None]:
    """A parallel HDF5 file's create, ``datasets`` datasets each written collectively (4 bytes a rank), flush, close."""
    import h5py

    def run(i: int) -> None:
        f = h5py.File(os.path.join(d, f"h{datasets}-{i}.h5"), "w", driver="mpio", comm=COMM)
        for k in range(datasets):
            ds = f.create_dataset(f"d{k}", (COMM.size,), dtype="f4")
            with ds.collective:
                ds[COMM.rank:COMM.rank + 1] = np.ones(1, "f4")
        f.flush()
        f.close()
    return run


def measure(d: str, reps: int, what: str) -> float:
    if what in ("barrier", "p2p"):  # the site probe's own measurements (autotune site profile)
        return measure_comm(reps, what, best=False)  # this script reports medians
    if what == "mpiio":
        return timed(mpiio_file(d), reps)
    if what == "twophase":
        return statistics.median(COMM.allreduce(two_phase(d, i), op=MPI.MAX) for i in range(reps))
    if what.startswith("h5"):
        return timed(h5(d, int(what[2:])), reps)
    raise SystemExit(f"local_probe_ranks: {what!r} is not one of barrier, p2p, mpiio, twophase, h5K")


if __name__ == "__main__":
    value = measure(sys.argv[1], int(sys.argv[2]), sys.argv[3])
    if COMM.rank == 0:
        print(f"{value:.6g}")

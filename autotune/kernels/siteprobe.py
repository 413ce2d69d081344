"""The MPI side of ``autotune site profile``'s probe: one measurement, its value printed by rank 0.

    mpiexec -n N python -m mpi4py -m autotune.kernels.siteprobe REPS {barrier|alltoall|p2p}

- ``barrier``: seconds of one MPI_Barrier (20 in a row, slowest rank);
- ``alltoall``: seconds of one MPI_Alltoall of 8 bytes per rank pair (what a two-phase call exchanges first:
  every rank's offsets and lengths);
- ``p2p``: bytes per second each rank moves exchanging 16 MiB messages with its pair (MPI_Sendrecv; even N).

Each is the best of REPS: the repetition least disturbed by other work on the node ("run several iterations,
best result usually represents least jitter": ALCF, Parallel I/O on Theta), a site's fixed cost.
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable

import numpy as np
from mpi4py import MPI

COMM = MPI.COMM_WORLD
MESSAGE = 16 << 20
WHAT = ("barrier", "alltoall", "p2p")


def timed(fn: Callable[[int], None], reps: int, best: bool = False) -> float:
    """The slowest rank's seconds for ``fn(repetition)``, started together: the median over ``reps``, or with
    ``best`` the fastest (a fixed cost: the repetition least disturbed by other work on the node)."""
    out = []
    for i in range(reps):
        COMM.Barrier()
        t0 = MPI.Wtime()
        fn(i)
        out.append(COMM.allreduce(MPI.Wtime() - t0, op=MPI.MAX))
    return min(out) if best else statistics.median(out)


def measure(reps: int, what: str, best: bool = True) -> float:
    """One figure (see the module docstring); ``best``: the least disturbed repetition, else the median."""
    if what == "barrier":
        def barriers(_: int) -> None:
            for _ in range(20):
                COMM.Barrier()
        return timed(barriers, reps, best) / 20
    if what == "alltoall":
        send, recv = np.ones(COMM.size, np.int64), np.empty(COMM.size, np.int64)

        def alltoalls(_: int) -> None:
            for _ in range(20):
                COMM.Alltoall(send, recv)
        return timed(alltoalls, reps, best) / 20
    if what == "p2p":
        peer = COMM.rank ^ 1
        if peer >= COMM.size:
            raise SystemExit("autotune.kernels.siteprobe: p2p needs an even number of ranks")
        sbuf, rbuf = np.ones(MESSAGE, np.uint8), np.empty(MESSAGE, np.uint8)

        def exchange(_: int) -> None:
            for _ in range(4):
                COMM.Sendrecv(sbuf, peer, recvbuf=rbuf, source=peer)
        return 4 * MESSAGE / timed(exchange, reps, best)
    raise SystemExit(f"autotune.kernels.siteprobe: {what!r} is not one of {', '.join(WHAT)}")


def main(argv: list[str]) -> int:
    if len(argv) != 2 or not argv[0].isdigit() or int(argv[0]) < 1:
        raise SystemExit(f"usage: autotune.kernels.siteprobe REPS {{{'|'.join(WHAT)}}} (got {' '.join(argv)!r})")
    value = measure(int(argv[0]), argv[1])
    if COMM.rank == 0:
        print(f"{value:.6g}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

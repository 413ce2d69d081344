"""VPIC-IO-like particle write/read (LBNL Cori BB abstract): 8 variables per particle, one 1-D dataset each.

    mpiexec -n 4 python -m mpi4py -m autotune.kernels.vpic --particles-per-rank 256Ki

As in VPIC-IO: x, y, z, px, py, pz are float32 and id1, id2 int32 (32 bytes per particle), in
group ``Step#0``; each rank writes a contiguous slice of every dataset.
"""

from __future__ import annotations

import numpy as np

from autotune.kernels import _h5
from autotune.kernels._common import KernelContext, KernelParser, main, make_parser, read_shift

GROUP = "Step#0"
VARIABLES: tuple[tuple[str, str], ...] = (
    ("x", "f4"), ("y", "f4"), ("z", "f4"), ("id1", "i4"), ("id2", "i4"), ("px", "f4"), ("py", "f4"), ("pz", "f4"))
BYTES_PER_PARTICLE = sum(np.dtype(t).itemsize for _, t in VARIABLES)


def _parser() -> KernelParser:
    return make_parser("vpic")


def particle_ids(rank: int, n: int) -> np.ndarray:
    """The global indices of rank's particles as int32, as VPIC-IO stores them (wrapping past 2**31)."""
    return np.arange(rank * n, (rank + 1) * n, dtype=np.int64).astype(np.int32)


def particles(rank: int, n: int) -> dict[str, np.ndarray]:
    """Rank's particles as VPIC-IO makes them: ids from the global index, positions/momenta random."""
    rng = np.random.default_rng(rank)
    ids = particle_ids(rank, n)
    out: dict[str, np.ndarray] = {"id1": ids, "id2": ids * 2}
    for name, _ in VARIABLES:
        if name not in out:
            out[name] = rng.random(n, dtype=np.float32) * 64.0
    return out


def _io(ctx: KernelContext, path: str, sel: slice, arrays: dict[str, np.ndarray], write: bool) -> None:
    f = _h5.open_file(ctx, path, "w" if write else "r", ctx.args.alignment)
    total = ctx.size * ctx.args.particles_per_rank
    group = f.create_group(GROUP) if write else f[GROUP]
    for name, dtype in VARIABLES:
        dset = group.create_dataset(name, (total,), dtype=dtype) if write else group[name]
        if ctx.args.io_mode == "collective":
            with dset.collective:
                _move(dset, sel, arrays[name], write)
        else:
            _move(dset, sel, arrays[name], write)
    if write and ctx.sync:
        _h5.sync(f)
    f.close()


def _move(dset: object, sel: slice, arr: np.ndarray, write: bool) -> None:
    if write:
        dset[sel] = arr  # type: ignore[index]
    else:
        dset.read_direct(arr, source_sel=np.s_[sel])  # type: ignore[attr-defined]


def timed_phases(ctx: KernelContext) -> tuple[int, dict[str, float]]:
    """Write every variable, then read another rank's slice; returns bytes per phase and seconds."""
    n = ctx.args.particles_per_rank
    path = ctx.path("particles.h5")
    data = particles(ctx.rank, n)
    ctx.did = {"transfer_size": data["x"].nbytes, "piece_size": data["x"].nbytes, "layout": "contiguous",
               "file_mode": "shared", "library": "hdf5"}
    times: dict[str, float] = {}
    seconds = ctx.timed(lambda: _io(ctx, path, slice(ctx.rank * n, (ctx.rank + 1) * n), data, True), writes=True)
    if "write" in ctx.phases:
        times["write"] = seconds
    if "read" in ctx.phases:
        shift, _ = read_shift(ctx.comm)
        owner = (ctx.rank + shift) % ctx.size
        bufs = {name: np.empty(n, dtype=t) for name, t in VARIABLES}
        times["read"] = ctx.timed(lambda: _io(ctx, path, slice(owner * n, (owner + 1) * n), bufs, False))
        expect = particle_ids(owner, n)
        if bufs["id1"][0] != expect[0] or bufs["id2"][-1] != (expect[-1:] * 2)[0]:
            raise RuntimeError(f"read back wrong particle ids from rank {owner}'s slice")
    return n * ctx.size * BYTES_PER_PARTICLE, times


if __name__ == "__main__":
    main("vpic", _parser(), timed_phases)

"""A local (POSIX) file system under ROMIO's generic UFS driver: page cache, write-back, two-phase I/O.

Mechanisms (each measured on a 2-core Linux host with MPICH 4.0.2: experiments/evaluation/local_probe.py, and
fio for the device's write bandwidth):

- requests: each contiguous piece is one system call (``posix_latency``) and a copy into the page
  cache (``page_cache_bw`` per process); processes beyond the node's cores share them;
- shared-file writers serialise on the file's lock: buffered writes hold the inode lock while they
  copy (Linux ``i_rwsem``), so one file's writers (and aggregators) take turns, plus ``posix_lock``
  per request;
- data sieving (independent strided writes, ``romio_ds_write``): each rank reads and rewrites
  windows spanning its pieces, so the file's extent is copied twice, under the lock;
- two-phase I/O (collective buffering): per call every rank's offsets reach the aggregators, the
  aggregators gather the pieces (``_mpiio.exchange_time``; at most ``cores`` gather at once on a
  node) and write ``cb_buffer_size`` windows; a window with holes (blocks per rank written in
  transfer-size calls, as IOR does) is read, merged and rewritten whole: the extent a call spans,
  not its data, is copied;
- write-back: with a timed sync the dirty pages (the data, or the windows' extent) reach the device
  at ``posix_bw``, and no faster than one fsync'd file flushes (``posix_file_bw`` per file, files in
  parallel); without a sync they stay in the page cache (up to ``node_dirty_max``);
- collectives (``collective_op``): on a node running more ranks than cores, every collective waits
  for the scheduler (MPICH's ranks busy-poll), ``oversub_slice`` per ranks-per-core: 13 / 17 / 48 ms
  per barrier at 3 / 4 / 8 ranks on 2 cores here, 1 us at 2. A shared file's open, sync and close,
  each two-phase call, and parallel HDF5's metadata (per file and per dataset) are counted in
  collectives (``*_collectives``: properties of ROMIO and HDF5, not of the site).
"""

from __future__ import annotations

import math

from autotune.model._constants import Constants
from autotune.model._mpiio import calls_of, exchange_time
from autotune.model._prediction import Limit, Term
from autotune.model._settings import Resolved
from autotune.pattern import IOPattern


def cpu_share(cores: int, busy: int) -> float:
    """Slow-down when ``busy`` processes per node share ``cores`` (>= 1)."""
    return max(1.0, busy / max(1, cores))


def copy_time(c: Constants, nbytes: float, requests: float) -> float:
    """One process's seconds to issue ``requests`` calls moving ``nbytes`` through the page cache."""
    cpu = c.cpu_factor
    return requests * c.posix_latency / cpu + nbytes / (c.page_cache_bw * cpu)


def scheduler_wait(p: IOPattern, c: Constants, cores: int) -> float:
    """Seconds a hand-over between ranks waits for the scheduler: ``oversub_slice`` per rank per core when a
    node runs more ranks than ``cores`` (MPICH's ranks busy-poll), else nothing."""
    return c.oversub_slice * p.ranks_per_node / max(1, cores) if p.ranks_per_node > cores else 0.0


def collective_op(p: IOPattern, c: Constants, cores: int) -> float:
    """Seconds of one collective over ``p``'s ranks: ``sync_per_rank`` per rank and the scheduler's wait."""
    return c.sync_per_rank * p.ranks / c.cpu_factor + scheduler_wait(p, c, cores)


def library_terms(p: IOPattern, c: Constants, cores: int) -> list[Term]:
    """The collectives a shared file costs besides its data: MPI-IO's open, sync and close, HDF5's metadata."""
    if p.file_mode != "shared" or p.ranks == 1:
        return []  # file per process: each rank opens its own file alone (MPI_COMM_SELF)
    one = collective_op(p, c, cores)
    terms = [Term("file collectives", "collective sync", c.mpiio_file_collectives * one,
                  f"open, sync, close of the shared file: {c.mpiio_file_collectives:g} x {one * 1e3:.3g} ms")]
    if p.library == "hdf5":
        calls = calls_of(p)[0]
        n = c.h5_file_collectives + calls * c.h5_dataset_collectives
        terms.append(Term("HDF5 metadata", "metadata", n * one,
                          f"{n:g} collectives: the file's and {calls} dataset write(s)' x {one * 1e3:.3g} ms"))
    return terms


def writeback(p: IOPattern, c: Constants, dirty: float, op: str) -> list[Term]:
    """The flush of ``dirty`` bytes when the timed region syncs (reads come from the device)."""
    if op != "write":
        return []
    if not p.sync:
        spill = max(0.0, dirty - c.node_dirty_max * p.nodes)
        if spill <= 0:
            return []
        return [Term("write-back", "disk", spill / c.posix_bw, "dirty pages beyond node_dirty_max")]
    files = p.ranks if p.file_mode == "fpp" else max(1, p.files)
    device, per_file = dirty / c.posix_bw, dirty / files / c.posix_file_bw
    how = (f"at {c.posix_bw / 1e9:.3g} GB/s (the device)" if device >= per_file else
           f"{files} file(s) at {c.posix_file_bw / 1e9:.3g} GB/s each")
    return [Term("write-back", "disk", max(device, per_file), f"{dirty / 2**20:.4g} MiB synced, {how}")]


def posix_independent(p: IOPattern, r: Resolved, c: Constants, cores: int, op: str) -> tuple[list[Term], list[Limit]]:
    """Every rank issues its own requests (independent, collective buffering off, or file per process)."""
    per_rank_req = p.bytes_per_rank / p.piece
    share = cpu_share(cores, p.ranks_per_node)
    shared_writers = p.file_mode == "shared" and p.ranks > 1
    sieve = op == "write" and r.ds_write and p.layout == "strided" and shared_writers
    if sieve:
        # read and rewrite the rank's span in ind_wr_buffer-sized windows: the whole extent twice
        span = float(p.data_bytes)
        per_rank = 2 * copy_time(c, span, 2 * math.ceil(span / (512 << 10)))
        locked = p.ranks * span / (512 << 10) * c.posix_lock
        terms = [Term("data sieving", "client cache", per_rank * share,
                      f"each rank reads and rewrites {span / 2**20:.4g} MiB in 512 KiB windows"),
                 Term("file lock", "lock contention", locked, "sieving windows serialised on the file lock")]
    else:
        per_rank = copy_time(c, p.bytes_per_rank, per_rank_req)
        terms = [Term(f"{op} calls", "client injection", per_rank * share,
                      f"{per_rank_req:.4g} request(s) of {p.piece:.4g} B per rank, {share:.3g} ranks per core")]
        if shared_writers and op == "write":
            # buffered writes hold the inode's lock while they copy (Linux i_rwsem): one file's writers
            # take turns, so their copies add up instead of overlapping
            serial = p.ranks * per_rank - per_rank * share
            terms.append(Term("file lock", "lock contention", max(0.0, serial) + p.ranks * per_rank_req * c.posix_lock,
                              f"{p.ranks} writers of one file take turns"))
    if op == "read":
        terms = [Term("read transfer", "disk", p.data_bytes / c.posix_read_bw, "from the device")]
    terms += writeback(p, c, float(p.data_bytes), op) + library_terms(p, c, cores)
    return terms, [Limit("client injection", p.data_bytes / max(per_rank * share, 1e-12))]


def posix_collective(p: IOPattern, r: Resolved, c: Constants, cores: int, op: str) -> tuple[list[Term], list[Limit]]:
    """Two-phase I/O through ``r.aggregators`` aggregators writing ``r.cb_buffer`` windows.

    As ROMIO's ``ad_write_coll.c``: each call's file range (its extent: a block per rank in transfer-size
    calls spans the blocks' gaps) is cut into one domain per aggregator, written in ``ceil(domain /
    cb_buffer_size)`` rounds; each round is a collective (its sizes' all-to-all) and a message from every
    rank with data there. A window holding pieces of several ranks with gaps between them (blocks smaller
    than the window) is read, merged and rewritten whole. On an oversubscribed node every collective and
    every message hand-over waits for the scheduler (``collective_op``).
    """
    calls, call_bytes = calls_of(p)
    aggs = max(1, r.aggregators)
    cb = float(r.cb_buffer)
    # a block per rank written in transfer-size calls (IOR): each call spans the blocks' gaps. An HDF5 pattern's
    # calls are its datasets (VPIC: one per variable), each laid out rank after rank: no gaps.
    blocks = p.layout == "contiguous" and p.bytes_per_rank > p.transfer_size and p.library != "hdf5"
    extent = (p.ranks - 1) * p.bytes_per_rank + p.transfer_size if blocks else call_bytes
    rounds = max(1, math.ceil(extent / aggs / cb))
    holes = blocks and p.bytes_per_rank < cb
    moved = min(extent, rounds * aggs * cb) if holes else call_bytes
    parallel = min(aggs, cores * p.nodes)
    one = collective_op(p, c, cores)
    messages = p.ranks / aggs * (1 if blocks else rounds)  # per aggregator per call
    gather = (exchange_time(p, c, call_bytes, aggs) + messages * scheduler_wait(p, c, cores)) * aggs / parallel
    per_agg = moved / aggs
    # per round a write (and, with holes, the read before it); one file: the aggregators take turns
    write = copy_time(c, per_agg * (2 if holes else 1), rounds * (2 if holes else 1)) * aggs
    verb = "writes" if op == "write" else "reads"
    per_call = c.cb_call_collectives - 1 + rounds  # the probe's one-round call, plus one per extra round
    terms = [
        Term("collective sync", "collective sync", calls * per_call * one,
             f"{calls} call(s) x {per_call:g} collectives of {p.ranks} ranks ({rounds} round(s))"),
        Term("exchange phase", "exchange phase", calls * gather,
             f"{aggs} aggregator(s), {parallel} at once, {call_bytes / aggs / 2**20:.3g} MiB and {messages:.3g}"
             " message(s) each per call"),
        Term(f"aggregator {verb}", "aggregators", calls * write,
             f"{moved / 2**20:.4g} MiB per call in {cb / 2**20:.3g} MiB windows"
             + (" read, merged and rewritten (holes)" if holes else "")),
    ]
    terms += writeback(p, c, float(p.data_bytes), op) if op == "write" else [
        Term("read transfer", "disk", p.data_bytes / c.posix_read_bw, "from the device")]
    terms += library_terms(p, c, cores)
    total = sum(t.seconds for t in terms) or 1e-12
    return terms, [Limit("aggregators", p.data_bytes / total)]

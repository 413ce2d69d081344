"""A local (POSIX) file system under ROMIO's generic UFS driver: page cache, write-back, two-phase I/O.

Mechanisms (each measured on this kind of machine, shared/PLATFORM.md):

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
  at ``posix_bw``; without it they stay in the page cache (up to ``node_dirty_max``).
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


def writeback(p: IOPattern, c: Constants, dirty: float, op: str) -> list[Term]:
    """The flush of ``dirty`` bytes when the timed region syncs (reads come from the device)."""
    if op != "write":
        return []
    if not p.sync:
        spill = max(0.0, dirty - c.node_dirty_max * p.nodes)
        if spill <= 0:
            return []
        return [Term("write-back", "disk", spill / c.posix_bw, "dirty pages beyond node_dirty_max")]
    return [Term("write-back", "disk", dirty / c.posix_bw, f"{dirty / 2**20:.4g} MiB synced at"
                 f" {c.posix_bw / 1e9:.3g} GB/s")]


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
    terms += writeback(p, c, float(p.data_bytes), op)
    return terms, [Limit("client injection", p.data_bytes / max(per_rank * share, 1e-12))]


def posix_collective(p: IOPattern, r: Resolved, c: Constants, cores: int, op: str) -> tuple[list[Term], list[Limit]]:
    """Two-phase I/O through ``r.aggregators`` aggregators writing ``r.cb_buffer`` windows."""
    calls, call_bytes = calls_of(p)
    aggs = max(1, r.aggregators)
    cb = float(r.cb_buffer)
    if p.layout == "contiguous" and p.bytes_per_rank > p.transfer_size:
        extent = (p.ranks - 1) * p.bytes_per_rank + p.transfer_size  # a block per rank: holes between
        windows = min(math.ceil(extent / cb), p.ranks * (math.ceil(p.transfer_size / cb) + 1))
        moved, holes = windows * cb, True
    else:
        moved, holes = call_bytes, False
    parallel = min(aggs, cores * p.nodes)
    gather = exchange_time(p, c, call_bytes, aggs) * aggs / parallel
    per_agg = moved / aggs
    write = copy_time(c, per_agg * (2 if holes else 1), 2 * math.ceil(per_agg / cb)) * aggs  # one file: in turn
    verb = "writes" if op == "write" else "reads"
    terms = [
        Term("collective sync", "collective sync", calls * c.sync_per_rank * p.ranks / c.cpu_factor,
             f"{calls} call(s) x {p.ranks} ranks"),
        Term("exchange phase", "exchange phase", calls * gather,
             f"{aggs} aggregator(s), {parallel} at once, {call_bytes / aggs / 2**20:.3g} MiB each per call"),
        Term(f"aggregator {verb}", "aggregators", calls * write,
             f"{moved / 2**20:.4g} MiB per call in {cb / 2**20:.3g} MiB windows"
             + (" read, merged and rewritten (holes)" if holes else "")),
    ]
    terms += writeback(p, c, float(p.data_bytes), op) if op == "write" else [
        Term("read transfer", "disk", p.data_bytes / c.posix_read_bw, "from the device")]
    total = sum(t.seconds for t in terms) or 1e-12
    return terms, [Limit("aggregators", p.data_bytes / total)]

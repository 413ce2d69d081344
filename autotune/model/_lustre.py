"""Lustre: stripes over OSTs, OST/OSS/client limits, extent-lock contention, client cache.

Mechanisms (each a function, separately testable):

- ``client_request``: one process's request time, latency + size / stream (KAUST Shaheen II training: 1 writer).
- ``ost_rate``: an OST streams at ``ost_*_bw`` to one sequential client; interleaved streams (more
  than one client in one OST object) pay an HDD repositioning per request. Files per process do not: each
  object is written sequentially by its own client (ALCF Theta I/O talk: "FPP scales well as ranks exceed number of
  OSTs: multiple ranks can write to same OST but within separate files without extent lock contention").
- slow OSTs: files wider than the healthy OSTs get slow ones (ALCF Theta I/O talk: "use 48 of 56").
- ``lock_switches``: shared-file writes with more than one client per OST serialise on extent
  locks (ALCF Theta I/O talk); pieces smaller than a stripe false-share stripe units (a lock per piece),
  otherwise each client takes its lock once per OST.
- ``cache_capacity``: writes land in the node's page cache up to ``dirty_per_osc`` per OST used.
"""

from __future__ import annotations

import math

from autotune.model._constants import Constants
from autotune.model._mpiio import RoundFn, collective
from autotune.model._prediction import Limit, Term
from autotune.model._settings import Resolved
from autotune.pattern import IOPattern
from autotune.systems import FileSystem


def client_request(c: Constants, size: float, op: str) -> float:
    """Seconds for one process to move one request of ``size`` bytes to or from Lustre."""
    cpu = c.cpu_factor
    if op == "write":
        return c.write_latency / cpu + size / (c.write_stream * cpu)
    return c.read_latency / cpu + size / (c.read_stream * cpu)


def ost_rate(c: Constants, op: str, request: float, streams: float) -> float:
    """Bytes/s one OST delivers: full speed to one stream, repositioning per request otherwise."""
    bw = c.ost_write_bw if op == "write" else c.ost_read_bw
    if streams <= 1.0:
        return bw
    return request / (request / bw + c.seek_time)


def healthy_osts(fs: FileSystem, c: Constants) -> int:
    return max(1, (fs.osts or 1) - c.slow_osts)


def oss_used(fs: FileSystem, osts_used: int) -> int:
    osts, oss = fs.osts or 1, fs.oss or fs.osts or 1
    return max(1, min(oss, math.ceil(osts_used * oss / osts)))


def lock_switches(p: IOPattern, stripe_size: int, osts_used: int, clients_per_ost: float) -> float:
    """Extent locks taken per OST for a shared-file write (0 with one client per OST).

    On a contended object Lustre stops expanding locks, so every write call takes a lock for its own
    extent, at most one stripe unit (ALCF Theta I/O talk's ping-pong of expanded locks is the limit case).
    """
    if clients_per_ost <= 1.0:
        return 0.0
    requests = p.data_bytes / osts_used / min(stripe_size, p.transfer_size)
    return requests * (1.0 - 1.0 / clients_per_ost)


def lock_cost(c: Constants, clients_per_ost: float) -> float:
    """Seconds per lock hand-over: an enqueue, a blocking callback to the holder and its cancel
    (``lock_time``, client side scaled by ``cpu_factor``); 0 with one client per OST."""
    return c.lock_time / c.cpu_factor if clients_per_ost > 1.0 else 0.0


def cache_capacity(c: Constants, osts_per_node: int) -> float:
    """Dirty bytes a node may cache before writes wait for the servers."""
    return min(c.node_dirty_max, c.dirty_per_osc * max(1, osts_per_node))


def round_fn(p: IOPattern, r: Resolved, c: Constants, fs: FileSystem, op: str) -> RoundFn:
    """One collective round on Lustre: each active aggregator moves one buffer to its OST."""
    sc = r.stripe_count

    def fn(cb: int, active: int) -> tuple[float, str, list[Limit]]:
        k = max(1.0, active / sc)
        cands: list[tuple[float, str]] = [(client_request(c, cb, op), "aggregators")]
        ost = k * cb / ost_rate(c, op, cb, k)
        if sc > healthy_osts(fs, c):
            ost = max(ost, k * cb / c.slow_ost_bw)
        cands.append((ost, "OSTs"))
        cands.append((min(active, sc) * k * cb / (oss_used(fs, min(active, sc)) * c.oss_bw), "OSS"))
        cands.append((math.ceil(active / p.nodes) * cb / (c.node_bw * c.cpu_factor), "client injection"))
        if op == "write" and k > 1.0 and not r.lock_shared:
            cands.append((k * (c.lock_time / c.cpu_factor + client_request(c, cb, op)), "lock contention"))
        secs, res = max(cands)
        limits = [Limit(n, active * cb / s) for s, n in cands]
        return secs, res, limits

    return fn


def lustre_collective(p: IOPattern, r: Resolved, c: Constants, fs: FileSystem,
                      op: str) -> tuple[list[Term], list[Limit]]:
    return collective(p, r, c, r.stripe_count, round_fn(p, r, c, fs, op), op, c.rpc_size)


def lustre_independent(p: IOPattern, r: Resolved, c: Constants, fs: FileSystem,
                       op: str) -> tuple[list[Term], list[Limit]]:
    """Every rank does its own I/O (independent calls, collective buffering off, or file per process)."""
    osts = fs.osts or 1
    sc, ss, ts = r.stripe_count, r.stripe_size, p.transfer_size
    fpp = p.file_mode == "fpp"
    if fpp:
        osts_used = min(osts, p.ranks * sc)
        per_rank = sc
        streams = p.ranks * sc / osts_used
    else:
        osts_used = sc
        per_rank = min(sc, math.ceil(p.bytes_per_rank / ss) + 1) if p.layout == "contiguous" else sc
        streams = min(float(p.ranks), p.ranks * per_rank / sc)
    request = min(ts, ss)
    client = ts / client_request(c, ts, op)
    cands = [
        (p.ranks * client, "client injection"),
        (p.nodes * c.node_bw * c.cpu_factor, "client injection"),
        (osts_used * ost_rate(c, op, request, 1.0 if fpp else streams), "OSTs"),  # FPP: sequential per object
        (oss_used(fs, osts_used) * c.oss_bw, "OSS"),
    ]
    if not fpp and sc > healthy_osts(fs, c):
        cands.append((sc * c.slow_ost_bw, "OSTs"))
    locked = op == "write" and not fpp and streams > 1.0
    if locked:
        cands.append((osts_used * min(ost_rate(c, op, request, 1.0), request / client_request(c, request, op)),
                      "lock contention"))
    rate, res = min(cands)
    limits = [Limit(n, b) for b, n in cands]
    terms: list[Term] = []
    data = float(p.data_bytes)
    if op == "write":
        per_node = data / p.nodes
        osts_node = min(osts_used, p.ranks_per_node * per_rank)
        # the page cache absorbs writes only when the flush is outside the timed region (no sync)
        cached = 0.0 if p.sync else min(per_node, cache_capacity(c, osts_node))
        cpu = c.cpu_factor
        copy = ts / (c.call_overhead / cpu + ts / (c.rank_copy_bw * cpu))
        fill = min(c.node_copy_bw * cpu, p.ranks_per_node * copy)
        if cached > 0:
            terms.append(Term("client cache", "client cache", cached / fill,
                              f"{cached / 2**20:.4g} MiB per node cached at {fill / 1e9:.3g} GB/s (flush untimed)"))
        data -= cached * p.nodes
        if locked:
            sw = lock_switches(p, ss, osts_used, streams)  # a client holds the extent lock before it caches
            terms.append(Term("extent locks", "lock contention", sw * lock_cost(c, streams),
                              f"{sw:.4g} lock hand-overs per OST, {streams:.3g} clients per OST"))
        if r.ds_write and p.layout == "strided" and not fpp:
            read = min(osts_used * c.ost_read_bw, p.nodes * c.node_bw * cpu)
            terms.append(Term("read-modify-write", "OSTs", p.data_bytes / read, "data sieving reads each window first"))
    if data > 0:
        terms.append(Term(f"{op} transfer", res, data / rate,
                          f"{data / 1e9:.4g} GB at {rate / 1e9:.3g} GB/s ({osts_used} OSTs,"
                          f" {streams:.3g} streams per OST)"))
    return terms, limits

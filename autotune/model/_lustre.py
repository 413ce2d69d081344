"""Lustre: stripes over OSTs, OST/OSS/client limits, extent locks by region, client cache.

Mechanisms (each a function, separately testable):

- ``client_request``: one process's request time, latency + size / stream (KAUST Shaheen II training: 1 writer).
- ``region``: the contiguous bytes one client writes into one OST object before another client's data
  begins (a rank's block over the stripe count, a stripe unit, or a strided piece).
- ``ost_rate``: an OST streams at ``ost_*_bw`` to one sequential client; interleaved clients in one object pay an
  HDD repositioning per request. Files per process do not: each object is written sequentially by its own
  client (ALCF Theta I/O talk: "FPP scales well as ranks exceed number of OSTs: multiple ranks can write to
  same OST but within separate files without extent lock contention"). For a shared file the request the
  OST sees is the client's batch in flight (``rpcs_in_flight`` RPCs, Lustre manual ``max_rpcs_in_flight``) or
  its region, whichever is smaller: the client cache merges a region's writes into full RPCs.
- slow OSTs: files wider than the healthy OSTs get slow ones (ALCF Theta I/O talk: "use 48 of 56").
- ``lock_switches``: extent locks are taken per region, not per transfer: the server grants a client's lock
  over its extent and grows it up to ``lock_grow`` when others contend (Lustre LDLM); a hand-over happens
  when another client's region is next (probability 1 - 1/k with k clients per OST). Regions smaller than a
  stripe unit (strided pieces, small blocks) hand the lock over per piece (ALCF Theta I/O talk's ping-pong).
- ``client_ceiling``: what one node's Lustre client moves to a shared file: per OST it talks to, at most
  ``rpcs_in_flight`` RPCs of ``rpc_size`` per round trip (Lustre manual), and never more than its NIC.
- fan-out: each rank waits for the grant of every region lock it takes (one per region per OST object), so
  many stripes with few clients add lock round trips to every rank's stream.
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


# Lustre's lock server grows a write lock greedily while few locks conflict and curtails it once more than 32
# conflicting locks are granted on the object (ldlm_extent.c, ldlm_extent_internal_policy_fixup)
LDLM_CONTENDED = 32


def span(p: IOPattern, by_node: bool = True) -> float:
    """Contiguous bytes one client writes side by side in a shared file: a rank's block (IOR ``-b``) or strided
    piece, times its node's ranks when ``by_node`` (ranks are placed on nodes in blocks, srun's and aprun's
    default, so a node's consecutive ranks write consecutive blocks or pieces)."""
    unit = p.piece if p.layout == "strided" else p.block
    return float(unit * (p.ranks_per_node if by_node else 1))


def node_locks(p: IOPattern, stripe_size: int, nodes_per_ost: float) -> bool:
    """Whether a node's ranks share its extent locks, so that the node's span is the client's region (``region``).

    Locks are held by nodes (A. Dilger, lustre-discuss, 2009-11-19). While at most ``LDLM_CONTENDED`` nodes write
    an object the server grows a node's lock over its siblings' pieces. Past that it grows a lock at most
    ``LDLM_MAX_GROWN_EXTENT`` (32 MiB) from the request and never over another client's granted lock
    (``ldlm_extent.c``). A rank whose own block fills a stripe unit or more still gets the adjacent blocks of its
    node's ranks, which no other node writes. Pieces below a stripe unit share units with other nodes' pieces, so
    each piece is its own region (the ALCF Theta talk's 100 KB independent IOR on 256 nodes loses to collective).
    """
    return nodes_per_ost <= LDLM_CONTENDED or span(p, by_node=False) >= stripe_size


def region(p: IOPattern, stripe_size: int, stripe_count: int, by_node: bool = False) -> float:
    """Contiguous bytes one client writes into one OST object before another client's data begins.

    Extent locks are held by nodes, not processes (A. Dilger, lustre-discuss, 2009-11-19): with ``by_node`` (few
    nodes per object, so the server grows a node's lock over its siblings' pieces) the client's span is its node's
    (``span``), else one rank's. A span covering a full stripe lands as ``span / stripe_count`` in each object, one
    stripe unit when it covers fewer, itself below one unit (shared with its neighbours); a rank's strided piece
    interleaves with other ranks' pieces. Files per process: a rank's bytes over its own objects.
    """
    if p.file_mode == "fpp":
        return p.bytes_per_rank / max(1, stripe_count)
    if p.layout == "strided" and not by_node:
        return float(min(p.piece, stripe_size))
    node = span(p, by_node)
    if node >= stripe_size * stripe_count:
        return node / stripe_count
    return float(min(node, stripe_size))


def lock_unit(c: Constants, p: IOPattern, stripe_size: int, stripe_count: int, by_node: bool = False) -> float:
    """Bytes one extent lock covers: the client's region, grown at most ``lock_grow`` under contention."""
    return max(1.0, min(region(p, stripe_size, stripe_count, by_node), c.lock_grow))


def lock_switches(c: Constants, p: IOPattern, stripe_size: int, osts_used: int, clients_per_ost: float,
                  by_node: bool = False) -> float:
    """Extent-lock hand-overs per OST for a shared-file write (0 with one client per OST): one per lock unit
    of each client's regions, when the unit before it belonged to another client (1 - 1/k)."""
    if clients_per_ost <= 1.0:
        return 0.0
    locks = p.data_bytes / osts_used / lock_unit(c, p, stripe_size, osts_used, by_node)
    return locks * (1.0 - 1.0 / clients_per_ost)


def lock_cost(c: Constants, clients_per_ost: float) -> float:
    """Seconds per lock hand-over: an enqueue, a blocking callback to the holder, which writes back its dirty
    pages under the lock (one write RPC) and cancels it (``lock_time`` + ``write_latency``, client side scaled
    by ``cpu_factor``); 0 with one client per OST."""
    return (c.lock_time + c.write_latency) / c.cpu_factor if clients_per_ost > 1.0 else 0.0


def client_ceiling(c: Constants, osts: float, op: str) -> float:
    """Bytes/s one node's Lustre client moves to ``osts`` OSTs of one file: ``rpcs_in_flight`` RPCs of
    ``rpc_size`` per OST per round trip (latency + an RPC at the slower of one OST and the NIC), at most its NIC."""
    bw = c.ost_write_bw if op == "write" else c.ost_read_bw
    lat = c.write_latency if op == "write" else c.read_latency
    rtt = lat / c.cpu_factor + c.rpc_size / min(bw, c.node_bw * c.cpu_factor)
    return min(c.node_bw * c.cpu_factor, max(1.0, osts) * c.rpcs_in_flight * c.rpc_size / rtt)


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
    by_node = False
    if fpp:
        osts_used = min(osts, p.ranks * sc)
        per_rank = sc
        streams = p.ranks * sc / osts_used
    else:
        osts_used = sc
        per_rank = min(sc, math.ceil(p.bytes_per_rank / ss) + 1) if p.layout == "contiguous" else sc
        node_osts = min(sc, math.ceil(p.bytes_per_rank * p.ranks_per_node / ss) + 1) \
            if p.layout == "contiguous" else sc
        nodes_per_ost = min(float(p.nodes), p.nodes * node_osts / sc)
        # the OST sees clients (nodes): a node's cache merges its ranks' pages into RPCs, and its ranks share
        # its locks unless many nodes interleave pieces below a stripe unit (``node_locks``)
        by_node = node_locks(p, ss, nodes_per_ost)
        streams = nodes_per_ost
    locked = op == "write" and not fpp and streams > 1.0
    reg = region(p, ss, sc, by_node)
    # the request an OST sees from a shared-file writer: its batch in flight, within its region (the client
    # cache merges a region's writes into full RPCs); files per process and reads: one call's piece of a stripe
    request = min(reg, c.rpcs_in_flight * c.rpc_size) if op == "write" and not fpp else min(ts, ss)
    # fan-out: under contention a rank waits for the grant of each of its region locks
    waits = p.bytes_per_rank / lock_unit(c, p, ss, sc, by_node) * c.lock_time / c.cpu_factor if locked else 0.0
    client = p.bytes_per_rank / (p.bytes_per_rank / ts * client_request(c, ts, op) + waits)
    osts_node = min(osts_used, p.ranks_per_node * per_rank)
    cands = [
        (p.ranks * client, "client injection"),
        (p.nodes * c.node_bw * c.cpu_factor, "client injection"),
        (p.nodes * client_ceiling(c, osts_node, op), "client injection"),  # RPCs in flight per OST
        (osts_used * ost_rate(c, op, request, 1.0 if fpp else streams), "OSTs"),  # FPP: sequential per object
        (oss_used(fs, osts_used) * c.oss_bw, "OSS"),
    ]
    if op == "write" and not fpp:  # one node's client writing one file (docs/model.md: the node's file ceiling)
        cands.append((p.nodes * c.node_file_bw * c.cpu_factor, "client file ceiling"))
    if not fpp and sc > healthy_osts(fs, c):
        cands.append((sc * c.slow_ost_bw, "OSTs"))
    if locked and reg < ss:  # clients share stripe units: one writes a unit at a time (lock ping-pong)
        cands.append((osts_used * min(ost_rate(c, op, reg, 1.0), reg / client_request(c, reg, op)),
                      "lock contention"))
    rate, res = min(cands)
    limits = [Limit(n, b) for b, n in cands]
    terms: list[Term] = []
    data = float(p.data_bytes)
    if op == "write":
        per_node = data / p.nodes
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
            sw = lock_switches(c, p, ss, osts_used, streams, by_node)  # a client holds the extent lock before it caches
            terms.append(Term("extent locks", "lock contention", sw * lock_cost(c, streams),
                              f"{sw:.4g} lock hand-overs per OST, {streams:.3g} {'nodes' if by_node else 'clients'} per OST"))
        if r.ds_write and p.layout == "strided" and not fpp:
            read = min(osts_used * c.ost_read_bw, p.nodes * c.node_bw * cpu)
            terms.append(Term("read-modify-write", "OSTs", p.data_bytes / read, "data sieving reads each window first"))
    if data > 0:
        terms.append(Term(f"{op} transfer", res, data / rate,
                          f"{data / 1e9:.4g} GB at {rate / 1e9:.3g} GB/s ({osts_used} OSTs,"
                          f" {streams:.3g} {'nodes' if by_node else 'streams'} per OST)"))
    return terms, limits

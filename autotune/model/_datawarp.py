"""Cray DataWarp (striped mode) seen through DVS.

Mechanisms (KAUST Shaheen II training; NERSC Cori I/O talk; LBNL Cori BB abstract; NERSC BB tuning page):

- capacity = grains x granularity; a pattern that does not fit is rejected (``_settings``);
- each BB node serves ~6.5 GB/s (``bb_node_bw``), but one stream only ``bb_stream``: fewer than
  ``bb_writers_to_saturate`` (4) writers per node cannot saturate it;
- every DVS request costs ``dvs_request``: transfers below 512 KiB lose bandwidth; a transfer that is
  not aligned to the 8 MiB DVS stripe is split in two requests more often;
- no client cache (DVS): writes go straight to the BB nodes;
- allocations wrap round-robin over the pool: a node holding two grains serves twice the data;
- aggregators tied to BB grains: a count that is not a multiple of the grains unbalances them;
- private mode (KAUST Shaheen II training: "data is not striped over BB nodes", one grain per compute node): a compute
  node's data goes to its own grain, so the grains are the compute nodes (wrapped over the pool), each
  compute node gets at most one BB node's bandwidth (shared with the nodes wrapped onto it), and a
  transfer is never split at a stripe boundary; each private namespace has its own metadata on its
  BB node (inferred: the namespace is that grain's), so creates/opens spread over the nodes used.
"""

from __future__ import annotations

import math

from autotune.model._constants import Constants
from autotune.model._mpiio import RoundFn, collective
from autotune.model._prediction import Limit, Term
from autotune.model._settings import Resolved
from autotune.pattern import IOPattern
from autotune.systems import FileSystem


def dvs_requests(size: float, dvs_stripe: int, aligned: bool) -> float:
    """Expected DVS requests for one transfer: split at 8 MiB stripe boundaries."""
    if aligned:
        return max(1.0, math.ceil(size / dvs_stripe - 1e-9))
    return 1.0 + size / dvs_stripe


def stream_time(c: Constants, size: float, requests: float, op: str) -> float:
    """Seconds for one process to move ``size`` bytes to a BB node in ``requests`` DVS requests."""
    cpu = c.cpu_factor
    node = c.bb_node_bw if op == "write" else c.bb_node_read_bw
    stream = c.bb_stream * node / c.bb_node_bw
    return requests * c.dvs_request / cpu + size / (stream * cpu)


def bb_node_rate(c: Constants, op: str) -> float:
    return c.bb_node_bw if op == "write" else c.bb_node_read_bw


def round_fn(p: IOPattern, r: Resolved, c: Constants, fs: FileSystem, op: str) -> RoundFn:
    """One collective round on DataWarp: each active aggregator sends one buffer through DVS."""
    dvs = fs.stripe_size or (8 << 20)
    grains = max(1, r.bb_nodes)

    def fn(cb: int, active: int) -> tuple[float, str, list[Limit]]:
        per_grain = max(1.0, active / grains)
        cands: list[tuple[float, str]] = [
            (stream_time(c, cb, dvs_requests(cb, dvs, True), op), "aggregators"),
            (per_grain * r.bb_wrap * cb / bb_node_rate(c, op), "BB nodes"),
            (math.ceil(active / p.nodes) * cb / (c.dvs_node_bw * c.cpu_factor), "client injection"),
        ]
        secs, res = max(cands)
        return secs, res, [Limit(n, active * cb / s) for s, n in cands]

    return fn


def datawarp_collective(p: IOPattern, r: Resolved, c: Constants, fs: FileSystem,
                        op: str) -> tuple[list[Term], list[Limit]]:
    return collective(p, r, c, max(1, r.bb_nodes), round_fn(p, r, c, fs, op), op, fs.stripe_size or (8 << 20))


def datawarp_independent(p: IOPattern, r: Resolved, c: Constants, fs: FileSystem,
                         op: str) -> tuple[list[Term], list[Limit]]:
    """Every rank streams its own transfers to the BB nodes its data is striped over."""
    dvs = fs.stripe_size or (8 << 20)
    ts = p.transfer_size
    aligned = r.aligned or r.bb_private or (p.file_mode == "fpp" and ts % dvs == 0)
    reqs = dvs_requests(ts, dvs, aligned)
    per_rank = ts / stream_time(c, ts, reqs, op)
    grains = max(1, r.bb_nodes)
    nodes_eff = grains / r.bb_wrap
    cands = [
        (p.ranks * per_rank, "DVS requests" if reqs * c.dvs_request > ts / c.bb_stream else "client injection"),
        (nodes_eff * bb_node_rate(c, op), "BB nodes"),
        (p.nodes * c.dvs_node_bw * c.cpu_factor, "client injection"),
    ]
    rate, res = min(cands)
    writers = p.ranks / grains
    detail = (f"{grains} BB grain(s) on {r.bb_physical} node(s), {writers:.3g} writers per grain"
              + (" (private: one grain per compute node)" if r.bb_private else "")
              + (f", busiest node holds {r.bb_wrap} grains" if r.bb_wrap > 1 else ""))
    terms = [Term(f"{op} transfer", res, p.data_bytes / rate, detail)]
    return terms, [Limit(n, b) for b, n in cands]


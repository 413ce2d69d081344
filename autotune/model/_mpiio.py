"""Collective buffering (two-phase I/O), shared by the Lustre and DataWarp targets.

Each collective call moves ``ranks x transfer_size`` bytes. The call's file range is cut into
collective-buffer-sized units (the stripe size on Cray); aggregators are tied to targets (OSTs or
BB grains) as Cray does, so an aggregator count that is not a multiple of the target count loads
some aggregators twice (LBNL Cori BB abstract: 64 aggregators on 65 BB nodes). Per call the model charges:

- ``collective sync``: every rank's offsets reach the aggregators (``sync_per_rank x ranks``);
- ``exchange phase``: each active aggregator receives its pieces and bytes;
- rounds of aggregator writes, each bounded by the slowest resource (``round_fn``) and by the
  slowest of the active aggregators (``aggregator imbalance``, an extreme-value factor).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from autotune.model._constants import Constants
from autotune.model._prediction import Limit, Term
from autotune.model._settings import Resolved
from autotune.pattern import IOPattern

# round_fn(cb_bytes, active_aggregators) -> (seconds per round, binding resource, ceilings)
RoundFn = Callable[[int, int], tuple[float, str, list[Limit]]]


def straggler(n: int, cv: float) -> float:
    """Expected slowest of ``n`` aggregators relative to the mean: 1 + cv * sqrt(2 ln n)."""
    return 1.0 + cv * math.sqrt(2.0 * math.log(n)) if n > 1 else 1.0


def mapping_imbalance(aggregators: int, targets: int) -> float:
    """Busiest aggregator's load over the mean load when aggregators are tied to targets."""
    if aggregators <= 0 or targets <= 0:
        return 1.0
    if aggregators >= targets:
        per = aggregators // targets
        return aggregators / (targets * per)
    return math.ceil(targets / aggregators) * aggregators / targets


def exchange_time(p: IOPattern, c: Constants, call_bytes: float, active: int) -> float:
    """Seconds for the busiest of ``active`` aggregators to gather one call's data.

    Each aggregator receives from ``ranks / active`` ranks (``piece_contig`` per message) the
    ``call_bytes / piece / active`` contiguous pieces of its file domain (``piece_cost`` each: offset
    lists, flattening, a copy per piece) and their bytes at the slower of ``exchange_bw`` and its
    share of the node's NIC. Small pieces make the gather piece-bound, large ones byte-bound.
    """
    cpu = c.cpu_factor
    per_node = max(1.0, active / p.nodes)
    bw = min(c.exchange_bw, c.node_bw / per_node) * cpu
    pieces = call_bytes / p.piece / active
    return (p.ranks / active * c.piece_contig + pieces * c.piece_cost) / cpu + call_bytes / active / bw


def calls_of(p: IOPattern) -> tuple[int, float]:
    """(collective calls per phase, bytes per call over all ranks)."""
    calls = max(1, math.ceil(p.bytes_per_rank / p.transfer_size))
    return calls, p.data_bytes / calls


def collective(p: IOPattern, r: Resolved, c: Constants, targets: int, round_fn: RoundFn,
               op: str, rpc: float) -> tuple[list[Term], list[Limit]]:
    """Terms of one collective phase through ``r.aggregators`` aggregators.

    ``rpc`` is the target's request size: a buffer of n requests has n independent delays, so the
    slowest aggregator's excess shrinks as 1/sqrt(n).
    """
    calls, call_bytes = calls_of(p)
    cb = r.cb_buffer
    units = math.ceil(call_bytes / cb - 1e-9) + (0 if r.aligned else 1)
    aggs = r.aggregators
    active = min(aggs, units)
    imb = mapping_imbalance(aggs, targets) if units >= aggs else 1.0
    rounds = max(1, math.ceil(units * imb / aggs - 1e-9)) if units > aggs else 1
    unit = min(cb, call_bytes)
    round_s, resource, limits = round_fn(int(unit), active)
    base = calls * rounds * round_s
    slow = straggler(active, c.straggler_cv / math.sqrt(max(1.0, unit / rpc)))
    cpu = c.cpu_factor
    gather = exchange_time(p, c, call_bytes, active)
    verb = "writes" if op == "write" else "reads"
    terms = [
        Term("collective sync", "collective sync", calls * c.sync_per_rank * p.ranks / cpu,
             f"{calls} call(s) x {p.ranks} ranks"),
        Term("exchange phase", "exchange phase", calls * gather,
             f"{active} active of {aggs} aggregators, {call_bytes / active / 1e6:.3g} MB each per call"
             f" in {call_bytes / p.piece / active:.4g} piece(s) of {p.piece:.4g} B"),
        Term(f"aggregator {verb}", resource, base,
             f"{calls * rounds} round(s) of {unit / 2**20:.3g} MiB"
             + (f", load imbalance x{imb:.2f}" if imb > 1 else "")),
        Term("slowest aggregator", "aggregator imbalance", base * (slow - 1.0),
             f"slowest of {active} per round: x{slow:.2f}"),
    ]
    return terms, limits

"""Aggregate ceilings no prediction may beat: the physics that cannot lie.

Whatever the mechanisms say, a phase cannot move its data faster than the smallest aggregate limit
that applies to it: the OSTs in use x per-OST rate, their OSS x per-OSS rate and the client NICs x
nodes on Lustre; the BB nodes (grains, less a round-robin wrap) x per-node rate and the DVS clients
on DataWarp; the device on a local file system; on today's tiers the flash of each node (NVMe,
PCC), the Rabbits' SSDs, the nodes' PCIe links or NICs (``_nearnode``). The one exception is the client page cache when
the flush is outside the timed region (``pattern.sync`` false): those bytes only pay the copy.
``enforce`` adds an ``aggregate ceiling`` term when the mechanisms come out faster than the bound.
"""

from __future__ import annotations

from autotune.model._constants import Constants
from autotune.model._lustre import cache_capacity, oss_used
from autotune.model._nearnode import near_limits
from autotune.model._prediction import Limit, Term
from autotune.model._settings import Resolved
from autotune.pattern import IOPattern
from autotune.systems import FileSystem
from autotune.tiers import DATAWARP, LUSTRE


def osts_in_use(p: IOPattern, r: Resolved, fs: FileSystem) -> int:
    """OSTs a phase spreads over: the stripe count, or every rank's stripes for file per process."""
    osts = fs.osts or 1
    if p.file_mode == "fpp":
        return min(osts, p.ranks * r.stripe_count)
    return min(osts, r.stripe_count)


def aggregate_limits(p: IOPattern, r: Resolved, c: Constants, fs: FileSystem, op: str) -> list[Limit]:
    """The aggregate bandwidth ceilings (bytes/s) for ``op`` on ``fs``."""
    cpu = c.cpu_factor
    if fs.tier is LUSTRE:
        used = osts_in_use(p, r, fs)
        ost = c.ost_write_bw if op == "write" else c.ost_read_bw
        return [Limit("OSTs", used * ost), Limit("OSS", oss_used(fs, used) * c.oss_bw),
                Limit("client injection", p.nodes * c.node_bw * cpu)]
    if fs.tier is DATAWARP:
        node = c.bb_node_bw if op == "write" else c.bb_node_read_bw
        grains = max(1, r.bb_nodes)
        return [Limit("BB nodes", grains / r.bb_wrap * node),
                Limit("client injection", p.nodes * c.dvs_node_bw * cpu)]
    if fs.tier.near_node:  # node-local flash x nodes, Rabbit SSDs x Rabbits, links and NICs x nodes
        return near_limits(p, c, fs, op, r.rabbit_type or None)
    device = c.posix_bw if op == "write" else c.posix_read_bw
    return [Limit("disk", device)]


def cacheable(p: IOPattern, r: Resolved, c: Constants, fs: FileSystem, op: str) -> float:
    """Bytes the client page cache may absorb without the timed region paying their flush."""
    if op != "write" or p.sync or fs.tier is DATAWARP:
        return 0.0
    if fs.tier is LUSTRE:
        per_node = cache_capacity(c, min(osts_in_use(p, r, fs), p.ranks_per_node * r.stripe_count))
    else:
        per_node = c.node_dirty_max
    return min(float(p.data_bytes), per_node * p.nodes)


def enforce(p: IOPattern, r: Resolved, c: Constants, fs: FileSystem, op: str,
            terms: list[Term]) -> tuple[list[Term], list[Limit]]:
    """``terms`` plus an ``aggregate ceiling`` term if they move the uncached data faster than allowed."""
    limits = aggregate_limits(p, r, c, fs, op)
    ceiling = min(limits, key=lambda lim: lim.bytes_per_s)
    data = p.data_bytes - cacheable(p, r, c, fs, op)
    floor = data / ceiling.bytes_per_s
    moving = sum(t.seconds for t in terms if t.resource != "metadata")
    if floor > moving * (1 + 1e-9):
        terms = [*terms, Term("aggregate ceiling", ceiling.resource, floor - moving,
                              f"{data / 1e9:.4g} GB cannot beat {ceiling.resource}"
                              f" {ceiling.bytes_per_s / 1e9:.4g} GB/s")]
    return terms, limits

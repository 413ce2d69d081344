"""Today's tiers: node-local NVMe, Lustre's Persistent Client Cache (RW-PCC) and HPE Rabbit (Near Node Flash).

Mechanisms (docs/model.md "Today's tiers" says which are documented and which a site must confirm):

- node-local flash (Theta's SSDs, ALCF Theta I/O talk): every node writes its own device; one process streams at
  ``nvme_stream_*`` ("one process: write 175 MB/s, read 1.1 GB/s"), a node's device caps at
  ``nvme_*_bw`` ("two processes: 350 MB/s, 2.2 GB/s"), so a node needs two writers to fill it;
- RW-PCC: a file created under the site's auto-cache rule lives on the creating client's local flash
  (the node-local model above); its create still goes through the Lustre MDS (the namespace is
  Lustre's), and the copy back to the OSTs (HSM archive) happens after the job, outside the timed region;
- Rabbit xfs/gfs2: one file system per compute node on the chassis' Rabbit, reached over the node's PCIe
  link (``rabbit_link_bw``); the Rabbit's SSDs (``rabbit_drives`` x ``rabbit_drive_bw``) are shared by the
  job's compute nodes on that chassis (``compute_per_rabbit``);
- Rabbit lustre: one Lustre file system over the job's Rabbits, shared by all its nodes: data crosses
  the network (``node_bw`` per node) to ceil(nodes / compute_per_rabbit) Rabbits.

Each process streams at most ``write_stream``/``read_stream`` (a client process's own limit) on Rabbit.
MPI-IO collective buffering is not modelled on these tiers: their patterns are files per node or per
process (the rules), where each rank streams its own data.
"""

from __future__ import annotations

import math

from autotune.errors import ConfigError
from autotune.model._constants import Constants
from autotune.model._prediction import Limit, Term
from autotune.pattern import IOPattern
from autotune.systems import FileSystem
from autotune.tiers import NVME, PCC, RABBIT


def rabbits_in_job(p: IOPattern, fs: FileSystem) -> int:
    """Rabbits serving the job: one per chassis, the job's nodes packed onto chassis."""
    return math.ceil(p.nodes / fs.compute_per_rabbit)


def _need(c: Constants, fs: FileSystem, *names: str) -> None:
    for name in names:
        if getattr(c, name) <= 0:
            raise ConfigError(f"filesystem {fs.name!r}: model constant {name} is not set (no public figure: a site "
                              "measures it, e.g. fio on one Rabbit, and sets it under the file system's model:)")


def _rabbit_type(config_type: str | None) -> str:
    return config_type or RABBIT.default_type


def near_limits(p: IOPattern, c: Constants, fs: FileSystem, op: str, rabbit_type: str | None = None) -> list[Limit]:
    """The aggregate ceilings (bytes/s) of a near-node tier; used by the mechanisms and by ``_bounds``."""
    cpu = c.cpu_factor
    write = op == "write"
    if fs.tier in (NVME, PCC):
        stream = c.nvme_stream_write if write else c.nvme_stream_read
        device = c.nvme_write_bw if write else c.nvme_read_bw
        # the figures are per process on the site's own nodes (ALCF Theta I/O talk measured them on KNL): no cpu_factor
        return [Limit("node-local flash", p.nodes * device), Limit("process streams", p.ranks * stream)]
    _need(c, fs, "rabbit_drive_bw", "rabbit_link_bw")
    drive = c.rabbit_drive_bw if write or c.rabbit_drive_read_bw <= 0 else c.rabbit_drive_read_bw
    per_rabbit = c.rabbit_drives * drive
    stream = (c.write_stream if write else c.read_stream) * cpu
    rabbits = rabbits_in_job(p, fs)
    limits = [Limit("Rabbit SSDs", rabbits * per_rabbit), Limit("process streams", p.ranks * stream)]
    if RABBIT.shared_namespace(rabbit_type):
        return [*limits, Limit("client injection", p.nodes * c.node_bw * cpu)]
    # xfs/gfs2: each node's own file system; the busiest chassis shares one Rabbit among its nodes
    on_busiest = min(p.nodes, fs.compute_per_rabbit)
    per_node = min(c.rabbit_link_bw, per_rabbit / on_busiest)
    return [*limits, Limit("PCIe link", p.nodes * per_node)]


def near_phase(p: IOPattern, c: Constants, fs: FileSystem, op: str,
               rabbit_type: str | None = None) -> tuple[list[Term], list[Limit]]:
    """Every rank streams its files to the tier: the slowest aggregate limit sets the time."""
    limits = near_limits(p, c, fs, op, rabbit_type)
    slowest = min(limits, key=lambda lim: lim.bytes_per_s)
    if fs.tier is RABBIT:
        where = (f"{rabbits_in_job(p, fs)} Rabbit(s), {_rabbit_type(rabbit_type)}, "
                 f"{min(p.nodes, fs.compute_per_rabbit)} compute node(s) per Rabbit")
    else:
        where = f"{p.nodes} node(s) x their own flash, {p.ranks_per_node} process(es) per node"
        if fs.tier is PCC:
            where += " (RW-PCC: archived to Lustre after the job, not timed)"
    requests = p.bytes_per_rank / p.piece
    latency = requests * c.posix_latency / c.cpu_factor  # one system call per request, per rank in parallel
    terms = [Term(f"{op} transfer", slowest.resource, p.data_bytes / slowest.bytes_per_s + latency, where)]
    return terms, limits


def near_metadata(p: IOPattern, c: Constants, fs: FileSystem, op: str, rabbit_type: str | None = None) -> Term:
    """Creates and opens: local file systems in parallel per node; PCC and Rabbit Lustre through one MDS."""
    files = p.ranks if p.file_mode == "fpp" else p.files
    opens = p.ranks * (1 if p.file_mode == "fpp" else p.files)
    creates = files if op == "write" else 0
    if fs.tier is PCC or (fs.tier is RABBIT and RABBIT.shared_namespace(rabbit_type)):
        secs = creates / c.mds_create_rate + opens / c.mds_open_rate
        return Term("open/create", "metadata", secs, f"{creates} create(s), {opens} open(s) through the Lustre MDS")
    per_node = math.ceil((creates + opens) / p.nodes)
    return Term("open/create", "metadata", per_node * c.posix_latency / c.cpu_factor,
                f"{creates} create(s), {opens} open(s) on each node's own file system")

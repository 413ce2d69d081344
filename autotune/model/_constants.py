"""The model's constants: defaults with the figure each came from, and a site's overrides.

A site sets any of these under ``model:`` in its system profile (top level: client and MPI-IO
constants; under a file system: that file system's constants). Rates are bytes per second and may
be written as sizes ("3.07GB" = 3.07e9 B/s); times are seconds. docs/model.md explains each source.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from autotune.errors import ConfigError
from autotune.systems import FileSystem, SystemProfile
from autotune.units import parse_size

_MIB = 1 << 20


@dataclass(frozen=True)
class Constants:
    """Every constant the model uses; one instance per (system, file system)."""

    # --- client side (per process, Haswell; ``cpu_factor`` scales them for slower cores) ---
    cpu_factor: float = 1.0                 # NERSC Cori I/O talk: Haswell/KNL I/O bandwidth ratio 2.30 -> KNL 1/2.3
    write_latency: float = 0.874e-3         # per write request; with write_stream: 0.6 GB/s at 1 MiB (KAUST Shaheen II fit)
    write_stream: float = 1.2e9             # one process's write stream; unset in a profile: derived (below)
    client_stream: float = 1.835e9          # a client process's own pipelining limit: 1/(1/this + 1/3.47 GB/s) = 1.2 GB/s
    read_latency: float = 0.05e-3           # ALCF Theta I/O talk, CrayPat: KNL aggregator reads 1 MiB at ~2.1 GB/s
    read_stream: float = 6.0e9
    node_bw: float = 6.0e9                  # Lustre client (LNet over Aries) per node
    node_file_bw: float = 1.2e9             # one node's client writing one shared file; unset: write_stream (below)
    call_overhead: float = 20e-6            # one write() into the client page cache
    rank_copy_bw: float = 2.5e9             # one process copying into the page cache
    node_copy_bw: float = 10e9              # a node's page-cache fill rate
    dirty_per_osc: float = 32 * _MIB        # Lustre max_dirty_mb per OSC (client cache, writes only)
    node_dirty_max: float = 2048 * _MIB     # cap on a node's dirty pages
    # --- MPI-IO collective buffering (two-phase I/O) ---
    exchange_bw: float = 5.0e9              # one aggregator receiving (KAUST Shaheen II training fit: 1 vs 144 aggregators)
    piece_contig: float = 5e-6              # per contiguous piece received by an aggregator
    piece_cost: float = 0.37e-6             # per non-contiguous piece an aggregator gathers (KAUST Shaheen II training WRF fit)
    sync_per_rank: float = 2.9e-6           # per rank per collective call (offsets/counts all-to-all; WRF fit)
    straggler_cv: float = 0.43              # one RPC's time spread; slowest of A per round (KAUST Shaheen II training, ALCF talk)
    rpc_size: float = 1 * _MIB              # Lustre RPC (DVS: its 8 MiB stripe): n RPCs per round -> cv / sqrt(n)
    rpcs_in_flight: float = 8.0             # Lustre manual: osc.max_rpcs_in_flight, default 8 RPCs per OST per client
    romio_cb_buffer: float = 16 * _MIB      # ROMIO default cb_buffer_size
    # --- Lustre ---
    ost_write_bw: float = 3.0e9             # ALCF Theta I/O talk: 172 GB/s / 56 OSTs; KAUST Shaheen II training: >500 GB/s / 144
    ost_read_bw: float = 4.3e9              # ALCF Theta I/O talk: 240 GB/s / 56 OSTs
    oss_bw: float = 6.0e9                   # ALCF Theta I/O talk: "56 OSS Peak Performance 6 GB/s each"
    seek_time: float = 2e-3                 # HDD repositioning per request when streams interleave on an OST
    lock_time: float = 1e-3                 # one extent-lock enqueue/callback (client part scales with cpu_factor)
    lock_grow: float = 32 * _MIB            # Lustre LDLM: a contended write lock grows at most 32 MiB (LDLM_MAX_GROWN_EXTENT)
    slow_osts: int = 0                      # OSTs Lustre avoids unless a file needs them (ALCF Theta I/O talk: use 48 of 56)
    slow_ost_bw: float = 0.25e9             # what such an OST delivers to one file
    mds_create_rate: float = 20000.0        # file creates per second (one MDS)
    mds_open_rate: float = 50000.0          # opens per second
    # --- DataWarp ---
    bb_node_bw: float = 6.5e9               # NERSC BB tuning page: "roughly 6.5GB/s" per BB server (write)
    bb_node_read_bw: float = 6.5e9
    bb_writers_to_saturate: float = 4.0     # NERSC BB tuning page: "cannot be kept busy with less than 4 processes"
    dvs_request: float = 110e-6             # per DVS request: transfers < 512 KiB lose bandwidth (NERSC BB tuning page)
    dvs_node_bw: float = 1.8e9              # DVS client per node (NERSC BB tuning page: IOR on 16 nodes stops past ~4 BB nodes)
    bb_mds_rate: float = 5000.0             # one DW node is the metadata server (NERSC Cori I/O talk)
    # --- today's tiers (docs/model.md "Today's tiers"); a site sets its own under the file system's model: ---
    nvme_write_bw: float = 0.35e9           # one node's flash (ALCF Theta I/O talk: SSD 350 MB/s with 2 procs)
    nvme_read_bw: float = 2.2e9             # ALCF Theta I/O talk: read 2.2 GB/s with two processes
    nvme_stream_write: float = 0.175e9      # one process (ALCF Theta I/O talk: "One process: Write 175 MB/s")
    nvme_stream_read: float = 1.1e9         # ALCF Theta I/O talk: "One process: Read 1.1 GB/s"
    rabbit_drives: float = 16.0             # SSDs in use per Rabbit (public: 18 = 16 + 2 spares)
    rabbit_drive_bw: float = 0.0            # one Rabbit SSD's write rate: no public figure, the site must set it
    rabbit_drive_read_bw: float = 0.0
    rabbit_link_bw: float = 0.0             # one compute node's PCIe Gen4 link to its Rabbit: the site must set it
    # --- plain POSIX ---
    posix_bw: float = 0.5e9                 # the device's sustained write-back rate (fsync'd data)
    posix_read_bw: float = 2.0e9
    posix_latency: float = 50e-6            # per system call (open, a request)
    page_cache_bw: float = 2.0e9            # one process copying into the page cache (buffered write)
    posix_seek: float = 0.2e-3              # per request when writers interleave in one file on the device
    posix_lock: float = 20e-6               # per request: writers of one file serialise on its inode lock
    posix_file_bw: float = 0.25e9           # one file's write-back (one fsync'd inode); posix_bw is the device's
    # --- MPI collectives on an oversubscribed node (busy-polling ranks wait for the scheduler) ---
    # Counts are one barrier's time each, measured by experiments/evaluation/local_probe.py (MPICH 4.0.2 ROMIO, HDF5 1.10.8;
    # two runs, 4 ranks): library properties, not the site's.
    oversub_slice: float = 4e-3             # per collective, per (ranks on the node / cores), when ranks > cores
    mpiio_file_collectives: float = 8.0     # a shared file's MPI_File_open, _sync and _close (probe: 9.8, 6.8)
    cb_call_collectives: float = 3.5        # one two-phase call (offsets, requests, a window round; probe: 4.0, 3.1)
    h5_file_collectives: float = 17.0       # parallel HDF5 create, flush and close of one file (probe: 16, 19)
    h5_dataset_collectives: float = 4.7     # one dataset's create and collective write (probe: 4.9, 4.5)

    @property
    def bb_stream(self) -> float:
        """One DVS stream's asymptotic rate: ``writers_to_saturate`` streams at 1 MiB fill a BB node."""
        per = self.bb_node_bw / self.bb_writers_to_saturate
        t = _MIB / per - self.dvs_request
        return _MIB / t if t > 0 else per

    def with_(self, **changes: Any) -> Constants:
        return replace(self, **changes)


def derived_stream(c: Constants) -> float:
    """One process's write stream when the profile does not state it: the client's own pipelining
    limit in series with the slower of one OST and the client NIC (KAUST Shaheen II training's single writer: 1.2 GB/s
    on 3.47 GB/s OSTs), so a system with fast OSTs gets faster streams, up to ``client_stream``."""
    return 1.0 / (1.0 / c.client_stream + 1.0 / min(c.ost_write_bw, c.node_bw))


_FIELDS = {f.name: f for f in fields(Constants)}
_CACHE: dict[tuple[int, str], tuple[SystemProfile, Constants]] = {}


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool):
        raise ConfigError(f"{where}: {value!r} is not a number")
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return float(parse_size(value, where))
    raise ConfigError(f"{where}: {value!r} is not a number or a size")


def merge(base: Constants, overrides: dict[str, Any], where: str) -> Constants:
    """``base`` with ``overrides`` (a profile's ``model:`` mapping) applied; unknown names are errors."""
    changes: dict[str, Any] = {}
    for key, value in overrides.items():
        if key not in _FIELDS:
            raise ConfigError(f"{where}.{key}: unknown model constant (known: {', '.join(sorted(_FIELDS))})")
        num = _number(value, f"{where}.{key}")
        changes[key] = int(num) if key == "slow_osts" else num
    return replace(base, **changes) if changes else base


def constants_for(system: SystemProfile, fs: FileSystem) -> Constants:
    """The constants for ``fs`` on ``system``: defaults, then the profile's, then the file system's."""
    key = (id(system), fs.name)
    entry = _CACHE.get(key)
    if entry is not None and entry[0] is system:
        return entry[1]
    hit = merge(merge(Constants(), dict(system.model), f"system {system.name}.model"), dict(fs.extra),
                f"system {system.name}.filesystems.{fs.name}.model")
    if "write_stream" not in system.model and "write_stream" not in fs.extra:
        hit = replace(hit, write_stream=derived_stream(hit))
    if "node_file_bw" not in system.model and "node_file_bw" not in fs.extra:
        hit = replace(hit, node_file_bw=hit.write_stream)
    if len(_CACHE) > 256:
        _CACHE.clear()
    _CACHE[key] = (system, hit)
    return hit

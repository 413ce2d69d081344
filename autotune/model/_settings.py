"""From a configuration (namespaced parameters) to the settings that take effect on the target.

Follows the published tuning guides: Cray MPI-IO's aggregators default to the stripe count (one per OST, ALCF Theta I/O talk) and
its collective buffer is the stripe size (``cb_buffer_size`` ignored); ROMIO's aggregators default to
one per node. Shared-lock mode (``cray_cb_write_lock_mode=1``) acts only when every access is
collective and ``romio_no_indep_rw=true`` (ALCF Theta I/O talk).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from autotune.errors import ConfigError
from autotune.model._constants import Constants
from autotune.pattern import IOPattern
from autotune.systems import FileSystem, SystemProfile, access_mode, effective_stripe_count, parse_pfl
from autotune.tiers import DATAWARP, LUSTRE, RABBIT

_TRI = ("automatic", "enable", "disable")
# Parameters with no term in this model (docs/model.md covers ROMIO, Cray MPI-IO, Lustre, DataWarp, today's
# tiers): Open MPI's OMPIO component and its io-component choice. The model never guesses their effect.
_NO_TERM = {"ompi.": "the model has no term for Open MPI's MPI-IO components (OMPIO, romio321)"}


def cannot_judge(names: Iterable[str]) -> dict[str, str]:
    """The parameters among ``names`` the model has no term for, each with why: they are searched without
    the model's prior (its picks leave them to the sampler)."""
    return {n: why for n in names for prefix, why in _NO_TERM.items() if n.startswith(prefix)}


@dataclass(frozen=True)
class Resolved:
    """Settings in effect for one prediction."""

    stripe_count: int           # Lustre stripes (or DataWarp grains: the BB "stripe count")
    stripe_size: int            # Lustre stripe size; on DataWarp the MPI-IO striping unit
    cb_write: bool              # collective buffering used for collective writes
    cb_read: bool
    aggregators: int
    cb_buffer: int
    lock_shared: bool           # Cray shared-lock mode in effect
    ds_write: bool              # data sieving for independent non-contiguous writes
    aligned: bool               # collective calls start on stripe boundaries
    bb_nodes: int = 0           # DataWarp: grains allocated (BB nodes in the allocation)
    bb_wrap: int = 1            # DataWarp: grains on the busiest physical BB node (round-robin wrap)
    bb_physical: int = 0
    cb_fallback: bool = False   # ROMIO "automatic" fell back to independent after exchanging offsets
    bb_private: bool = False    # DataWarp private mode: one grain per compute node, no striping over BB nodes
    rabbit_type: str = ""       # HPE Rabbit: xfs | gfs2 | lustre


def _tri(config: Mapping[str, Any], key: str) -> str:
    value = str(config.get(key, "automatic")).lower()
    if value not in _TRI:
        raise ConfigError(f"{key}: {value!r} is not one of {', '.join(_TRI)}")
    return value


def _int(config: Mapping[str, Any], key: str, default: int) -> int:
    value = config.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or int(value) != value or value < 1:
        raise ConfigError(f"{key}: {value!r} must be a positive integer")
    return int(value)


def _bb(pattern: IOPattern, fs: FileSystem, config: Mapping[str, Any]) -> tuple[int, int, int]:
    """(grains, grains on the busiest node, physical nodes); capacity below the data is an error.

    Private mode (KAUST Shaheen II training): each compute node gets one grain of its own, so the grains are the compute
    nodes, wrapped round-robin over the pool's nodes, and each node's share must fit in one grain.
    """
    pool = fs.pool(config.get("bb.pool"))
    written = pattern.written_bytes
    if access_mode(config) == "private":
        grains = pattern.nodes
        if written / pattern.nodes > pool.granularity:
            raise ConfigError(
                f"bb.access_mode: private gives each compute node {pool.granularity / 1024**3:.2f} GiB ({pool.name}), "
                f"below the {written / pattern.nodes / 1e9:.1f} GB each of the {pattern.nodes} nodes writes")
    elif "bb.nodes" in config:
        grains = _int(config, "bb.nodes", 1)
        if grains * pool.granularity < written:
            raise ConfigError(
                f"bb.nodes: {grains} x {pool.granularity / 1024**3:.2f} GiB ({pool.name}) = "
                f"{grains * pool.granularity / 1e9:.1f} GB is below the {written / 1e9:.1f} GB the pattern writes")
    else:
        grains = DATAWARP.bb_nodes(config, fs, pattern)
    wrap = math.ceil(grains / pool.nodes)
    return grains, wrap, min(grains, pool.nodes)


def settings_in_effect(config: Mapping[str, Any], system: SystemProfile, fs: FileSystem, pattern: IOPattern,
                       c: Constants) -> tuple[Resolved, dict[str, Any]]:
    """The settings in effect on the model and the ``hints_in_effect`` record (arguments as ``hints.resolve``)."""
    cray = system.is_cray
    bb_nodes = bb_wrap = bb_phys = 0
    if fs.tier is LUSTRE:
        osts = fs.osts or 1
        layout = config.get("lustre.pfl", fs.pfl if "lustre.stripe_count" not in config else "")
        if layout:
            per_file = pattern.bytes_per_rank if pattern.file_mode == "fpp" else pattern.data_bytes / pattern.files
            sc = effective_stripe_count(parse_pfl(str(layout)), per_file, osts)
        else:
            sc = min(_int(config, "lustre.stripe_count", fs.default_stripe_count), osts)
        ss = _int(config, "lustre.stripe_size", fs.default_stripe_size)
    elif fs.tier is DATAWARP:
        bb_nodes, bb_wrap, bb_phys = _bb(pattern, fs, config)
        sc = bb_nodes
        ss = _int(config, "lustre.stripe_size", fs.stripe_size or (8 << 20))
    else:
        sc, ss = 1, _int(config, "lustre.stripe_size", 1 << 20)
    cbw, cbr = _tri(config, "mpiio.romio_cb_write"), _tri(config, "mpiio.romio_cb_read")
    collective = pattern.io_mode == "collective" and pattern.file_mode == "shared" and pattern.library != "posix"
    # ROMIO's "automatic" uses two-phase I/O only when the ranks' accesses interleave (ad_write_coll.c);
    # Cray MPI-IO's default is collective buffering on.
    interleaved = cray or pattern.layout == "strided"
    cb_write = collective and (cbw == "enable" or (cbw == "automatic" and interleaved))
    cb_read = collective and (cbr == "enable" or (cbr == "automatic" and interleaved))
    if cray:
        base = _int(config, "mpiio.cb_nodes", sc if fs.tier in (LUSTRE, DATAWARP) else pattern.nodes)
        aggs = base * _int(config, "cray.cb_nodes_multiplier", 1)
        cb_buffer = ss
    else:
        aggs = _int(config, "mpiio.cb_nodes", pattern.nodes)
        cb_buffer = _int(config, "mpiio.cb_buffer_size", int(c.romio_cb_buffer))
    aggs = min(aggs, pattern.ranks)
    lock_req = int(config.get("cray.cb_write_lock_mode", 0) or 0)
    no_indep = str(config.get("mpiio.romio_no_indep_rw", "false")).lower() == "true"
    lock_shared = cray and lock_req == 1 and no_indep and pattern.is_all_collective and cb_write
    ds = _tri(config, "mpiio.romio_ds_write")
    ds_write = ds == "enable" or (ds == "automatic" and pattern.layout == "strided")
    align = _int(config, "hdf5.alignment", 1) if pattern.library == "hdf5" else 1
    if pattern.library == "hdf5":
        aligned = align > 1 and align % min(ss, fs.stripe_size or ss) == 0
    elif pattern.library == "pnetcdf":
        aligned = False  # the header shifts the data off stripe boundaries
    else:
        aligned = (pattern.ranks * pattern.transfer_size) % cb_buffer == 0 or pattern.transfer_size % cb_buffer == 0
    used = (cb_write and "write" in pattern.phases) or (cb_read and "read" in pattern.phases)
    cb_fallback = collective and not cray and cbw == "automatic" and not cb_write
    private = fs.tier is DATAWARP and access_mode(config) == "private"
    rabbit = str(config.get("rabbit.type", RABBIT.default_type)) if fs.tier is RABBIT else ""
    r = Resolved(sc, ss, cb_write, cb_read, aggs if used else 0, cb_buffer, lock_shared, ds_write,
                 aligned, bb_nodes, bb_wrap, bb_phys, cb_fallback, private, rabbit)
    eff: dict[str, Any] = {}
    if fs.tier is LUSTRE:
        eff.update({"striping_factor": sc, "striping_unit": ss})
    elif fs.tier is DATAWARP:
        eff.update({"bb_nodes": bb_nodes, "bb_pool": fs.pool(config.get("bb.pool")).name, "striping_unit": ss,
                    "bb_access_mode": access_mode(config)})
    elif rabbit:
        eff["rabbit_type"] = rabbit
    if collective:
        eff.update({"romio_cb_write": "enable" if cb_write else "disable",
                    "romio_cb_read": "enable" if cb_read else "disable"})
        if used:
            eff.update({"cb_nodes": aggs, "cb_buffer_size": cb_buffer})
    if cray:
        eff["cray_cb_write_lock_mode"] = 1 if lock_shared else 0
    if pattern.library == "hdf5":
        eff["hdf5_alignment"] = align
    return r, eff

"""One configuration -> the concrete settings of every layer (the single source for launch and export)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from autotune.errors import ConfigError
from autotune.pattern import IOPattern
from autotune.space import CATALOGUE, other_component
from autotune.systems import FileSystem, SystemProfile, access_mode, dw_capacity
from autotune.tiers import DATAWARP, LUSTRE, RABBIT, TIERS, Tier


@dataclass(frozen=True)
class Stripe:
    count: int
    size: int


@dataclass(frozen=True)
class BurstBuffer:
    """A DataWarp allocation: ``nodes`` grains; in private mode one grain per compute node and
    ``capacity`` is what each compute node gets (KAUST Shaheen II training); ``persistent`` names a reservation."""

    nodes: int
    pool: str
    capacity_bytes: int
    capacity: str  # as written in "#DW jobdw capacity=..." (private: per compute node)
    access_mode: str = "striped"
    persistent: str | None = None  # a persistent reservation's name: "#DW persistentdw name=..."

    @property
    def variable(self) -> str:
        """The environment variable DataWarp sets to the allocation's mount point in the job."""
        if self.persistent:
            return f"DW_PERSISTENT_STRIPED_{self.persistent}"
        return "DW_JOB_PRIVATE" if self.access_mode == "private" else "DW_JOB_STRIPED"


RABBIT_TYPES = RABBIT.rabbit_types
RABBIT_NAME = "autotune"  # the jobdw name: the mount point is $DW_JOB_autotune (lowercase letters: NNF and Flux accept it)


@dataclass(frozen=True)
class NearNode:
    """Today's tiers (docs/model.md): an HPE Rabbit allocation (``#DW jobdw type=... capacity=... name=...``),
    node-local NVMe (``#SBATCH --tmp=``), or Lustre's Persistent Client Cache (``lfs project -p``)."""

    kind: str                 # rabbit | nvme | pcc
    capacity_bytes: int       # rabbit xfs/gfs2 and nvme: per compute node; rabbit lustre: the aggregate
    capacity: str             # as written in "#DW jobdw capacity=" (GiB)
    type: str = ""            # rabbit: xfs | gfs2 | lustre
    pcc_project: int | None = None
    pcc_archive_id: int | None = None
    request: str = ""         # nvme: the site's way to ask for the local flash (a comment)

    @property
    def tier(self) -> Tier:
        """The tier of the allocation (its ``kind``'s entry in ``TIERS``)."""
        return TIERS.get(self.kind)

    @property
    def variable(self) -> str | None:
        """The environment variable holding the mount point (Rabbit: ``DW_JOB_<name>``), None for a fixed path."""
        return f"DW_JOB_{RABBIT_NAME}" if self.tier is RABBIT else None


def _gib(nbytes: float) -> tuple[int, str]:
    gib = max(1, math.ceil(nbytes / 1024**3 - 1e-9))
    return gib * 1024**3, f"{gib}GiB"


def near_node(config: Mapping[str, Any], fs: FileSystem, pattern: IOPattern) -> NearNode:
    """The allocation a near-node tier needs: per node for node-local file systems, the total for Rabbit Lustre."""
    per_node = pattern.written_bytes / pattern.nodes
    if fs.tier is RABBIT:
        kind = str(config.get("rabbit.type", RABBIT.default_type))
        if kind not in RABBIT_TYPES:
            raise ConfigError(f"rabbit.type: {kind!r} is not one of {', '.join(RABBIT_TYPES)}")
        nbytes, text = _gib(pattern.written_bytes if RABBIT.shared_namespace(kind) else per_node)
        return NearNode(RABBIT.name, nbytes, text, kind)
    nbytes, text = _gib(per_node)
    return NearNode(fs.kind, nbytes, text, pcc_project=fs.pcc_project, pcc_archive_id=fs.pcc_archive_id,
                    request=fs.request)


@dataclass(frozen=True)
class Settings:
    """What a configuration means on one target: MPI-IO hints, Open MPI MCA parameters, striping, BB allocation,
    HDF5 settings."""

    info: dict[str, str]
    stripe: Stripe | None = None
    bb: BurstBuffer | None = None
    near: NearNode | None = None
    hdf5_alignment: int | None = None
    config: dict[str, Any] = field(default_factory=dict)
    mca: dict[str, str] = field(default_factory=dict)  # Open MPI: ``OMPI_MCA_<key>=<value>`` / ``--mca <key> <value>``


def _hint_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def burst_buffer(config: Mapping[str, Any], fs: FileSystem, pattern: IOPattern,
                 persistent: str | None = None) -> BurstBuffer:
    """The DataWarp allocation a configuration asks for. Striped: ``bb.nodes`` grains, capacity = grains x
    granularity. Private (KAUST Shaheen II training): one grain per compute node, the capacity line is the per-node grain."""
    pool = fs.pool(str(config["bb.pool"]) if "bb.pool" in config else None)
    mode = access_mode(config)
    if mode == "private":
        cap_bytes, cap = dw_capacity(1, pool)
        return BurstBuffer(pattern.nodes, pool.name, cap_bytes, cap, mode, persistent)
    nodes = DATAWARP.bb_nodes(config, fs, pattern)
    cap_bytes, cap = dw_capacity(nodes, pool)
    return BurstBuffer(nodes, pool.name, cap_bytes, cap, mode, persistent)


def resolve(config: Mapping[str, Any], system: SystemProfile, fs: FileSystem, pattern: IOPattern,
            persistent: str | None = None, io: str = "ompio") -> Settings:
    """Turn a namespaced configuration into per-layer settings for ``system``/``fs``.

    Parameters absent from ``config`` are left to the system's defaults (no hint is emitted). On
    upstream ROMIO, ``cb_nodes`` above one aggregator per node would be silently capped by the default
    ``cb_config_list=*:1``; unless the configuration sets ``cb_config_list`` itself, the matching
    ``*:N`` is added so that the requested aggregators really take effect. ``io``: under Open MPI, the io
    component that runs when ``config`` has no ``ompi.io`` (the launch's ``--mca io``/``OMPI_MCA_io``, else OMPIO).
    """
    info: dict[str, str] = {}
    mca: dict[str, str] = {}
    idle = other_component({"ompi.io": io, **config}) if system.mpi_flavour == "openmpi" else {}
    for name, value in config.items():
        if name in idle:  # Open MPI: a setting of the io component that does not run is not delivered
            continue
        known = CATALOGUE.get(name)
        if known is not None and known.mca is not None and system.mpi_flavour == "openmpi":
            mca[known.mca] = _hint_value(value)
        key = known.mpi_info if known is not None else None
        if key is None:
            continue
        if name.startswith("lustre.") and fs.tier is DATAWARP and name != "lustre.stripe_size":
            continue
        info[key] = _hint_value(value)
    upstream_romio = system.mpi_flavour == "mpich" or (system.mpi_flavour == "openmpi"
                                                        and str(config.get("ompi.io", io)).startswith("romio"))
    if upstream_romio and "mpiio.cb_nodes" in config and "mpiio.cb_config_list" not in config:
        per_node = math.ceil(int(config["mpiio.cb_nodes"]) / max(1, pattern.nodes))
        if per_node > 1:
            info["cb_config_list"] = f"*:{per_node}"
    stripe = None
    if fs.tier is LUSTRE and ("lustre.stripe_count" in config or "lustre.stripe_size" in config):
        stripe = Stripe(int(config.get("lustre.stripe_count", fs.default_stripe_count)),
                        int(config.get("lustre.stripe_size", fs.default_stripe_size)))
    if stripe is not None and system.mpi_flavour == "openmpi" and config.get("ompi.io", io) == "ompio":
        # OMPIO's Lustre fs component stripes a new file by these (0/unset: the directory's layout)
        mca.update(fs_lustre_stripe_width=str(stripe.count), fs_lustre_stripe_size=str(stripe.size))
    bb = burst_buffer(config, fs, pattern, persistent) if fs.tier is DATAWARP else None
    near = near_node(config, fs, pattern) if fs.tier.near_node else None
    align = config.get("hdf5.alignment")
    return Settings(info=info, stripe=stripe, bb=bb, near=near,
                    hdf5_alignment=int(align) if align is not None else None, config=dict(config), mca=mca)

"""One configuration -> the concrete settings of every layer (the single source for launch and export)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from autotune.pattern import IOPattern
from autotune.space import CATALOGUE
from autotune.systems import FileSystem, SystemProfile, dw_capacity


@dataclass(frozen=True)
class Stripe:
    count: int
    size: int


@dataclass(frozen=True)
class BurstBuffer:
    nodes: int
    pool: str
    capacity_bytes: int
    capacity: str  # as written in "#DW jobdw capacity=..."


@dataclass(frozen=True)
class Settings:
    """What a configuration means on one target: MPI-IO hints, striping, BB allocation, HDF5 settings."""

    info: dict[str, str]
    stripe: Stripe | None = None
    bb: BurstBuffer | None = None
    hdf5_alignment: int | None = None
    config: dict[str, Any] = field(default_factory=dict)


def _hint_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def resolve(config: Mapping[str, Any], system: SystemProfile, fs: FileSystem, pattern: IOPattern) -> Settings:
    """Turn a namespaced configuration into per-layer settings for ``system``/``fs``.

    Parameters absent from ``config`` are left to the system's defaults (no hint is emitted). On
    upstream ROMIO, ``cb_nodes`` above one aggregator per node would be silently capped by the default
    ``cb_config_list=*:1``; unless the configuration sets ``cb_config_list`` itself, the matching
    ``*:N`` is added so that the requested aggregators really take effect.
    """
    info: dict[str, str] = {}
    for name, value in config.items():
        key = CATALOGUE[name].mpi_info if name in CATALOGUE else None
        if key is None:
            continue
        if name.startswith("lustre.") and fs.kind == "datawarp" and name != "lustre.stripe_size":
            continue
        info[key] = _hint_value(value)
    if system.mpi_flavour == "mpich" and "mpiio.cb_nodes" in config and "mpiio.cb_config_list" not in config:
        per_node = math.ceil(int(config["mpiio.cb_nodes"]) / max(1, pattern.nodes))
        if per_node > 1:
            info["cb_config_list"] = f"*:{per_node}"
    stripe = None
    if fs.kind == "lustre" and ("lustre.stripe_count" in config or "lustre.stripe_size" in config):
        stripe = Stripe(int(config.get("lustre.stripe_count", fs.default_stripe_count)),
                        int(config.get("lustre.stripe_size", fs.default_stripe_size)))
    bb = None
    if fs.kind == "datawarp":
        pool = fs.pool(str(config["bb.pool"]) if "bb.pool" in config else None)
        nodes = int(config.get("bb.nodes", pattern.bb_nodes(pool.granularity)))
        cap_bytes, cap = dw_capacity(nodes, pool)
        bb = BurstBuffer(nodes, pool.name, cap_bytes, cap)
    align = config.get("hdf5.alignment")
    return Settings(info=info, stripe=stripe, bb=bb,
                    hdf5_alignment=int(align) if align is not None else None, config=dict(config))

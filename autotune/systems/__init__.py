"""Site profiles (``search_spaces/systems/*.yaml``): MPI flavour, file systems, burst-buffer pools."""

from autotune.systems._charge import DEFAULT_CHARGE, Charge
from autotune.systems._profile import (
    ACCESS_MODES,
    FS_KINDS,
    MPI_FLAVOURS,
    NEAR_NODE,
    FileSystem,
    Pool,
    SystemProfile,
    access_mode,
    dw_capacity,
    load_system,
    parse_system,
)

__all__ = ["ACCESS_MODES", "DEFAULT_CHARGE", "FS_KINDS", "MPI_FLAVOURS", "NEAR_NODE", "Charge", "FileSystem", "Pool",
           "SystemProfile", "access_mode", "dw_capacity", "load_system", "parse_system"]

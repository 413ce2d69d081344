"""Site profiles (``search_spaces/systems/*.yaml``): MPI flavour, file systems, burst-buffer pools."""

from autotune.systems._charge import DEFAULT_CHARGE, Charge
from autotune.systems._profile import (
    FS_KINDS,
    MPI_FLAVOURS,
    FileSystem,
    Pool,
    SystemProfile,
    dw_capacity,
    load_system,
    parse_system,
)

__all__ = ["DEFAULT_CHARGE", "FS_KINDS", "MPI_FLAVOURS", "Charge", "FileSystem", "Pool", "SystemProfile", "dw_capacity",
           "load_system", "parse_system"]

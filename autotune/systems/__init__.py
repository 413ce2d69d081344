"""Site profiles (``search_spaces/systems/*.yaml``): MPI flavour, file systems, burst-buffer pools; and the
detection of the stack this process runs on (``detect``: MPI library and io component, file system, cores)."""

from autotune.systems._charge import DEFAULT_CHARGE, Charge
from autotune.systems._fsparse import FS_MAGIC, Mount, fs_kind, fstype_of_magic, is_network, mount_of, parse_mountinfo
from autotune.systems._mpiparse import (
    MPI_LIBRARIES,
    MpiLibrary,
    OmpiIo,
    is_romio,
    mca_args,
    ompi_io_component,
    parse_library_version,
    parse_ompi_info_io,
)
from autotune.systems._probe import Measured, ProbeResult, ProbeSetup, page_cache_rates, probe, writeback_rate
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
from autotune.systems._siteprofile import Target, parse_lfs_df, profile_site, site_profile_yaml
from autotune.systems.detect import (
    MARKS,
    Detection,
    Fact,
    FileSystemInfo,
    MpiStack,
    detect_cores,
    detect_filesystem,
    detect_mpi,
    detect_stack,
    detect_tools,
)

__all__ = [
    "ACCESS_MODES", "DEFAULT_CHARGE", "FS_KINDS", "FS_MAGIC", "MARKS", "MPI_FLAVOURS", "MPI_LIBRARIES", "NEAR_NODE",
    "Charge", "Detection", "Fact", "FileSystem", "FileSystemInfo", "Measured", "Mount", "MpiLibrary", "MpiStack",
    "OmpiIo", "Pool", "ProbeResult", "ProbeSetup", "SystemProfile", "Target", "access_mode", "detect_cores",
    "detect_filesystem", "detect_mpi", "detect_stack", "detect_tools", "dw_capacity", "fs_kind", "fstype_of_magic",
    "is_network", "is_romio", "load_system", "mca_args", "mount_of", "ompi_io_component", "page_cache_rates", "parse_lfs_df",
    "parse_library_version", "parse_mountinfo", "parse_ompi_info_io", "parse_system", "probe", "profile_site",
    "site_profile_yaml", "writeback_rate",
]

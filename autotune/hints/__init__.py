"""The one place a configuration becomes hints: MPI_Info, MPICH_MPIIO_HINTS, ROMIO file, lfs, #DW, h5py."""

from autotune.hints._dialects import (
    dw_lines,
    h5py_settings,
    h5py_snippet,
    job_lines,
    lfs_setstripe,
    mpich_mpiio_hints,
    pcc_lines,
    rabbit_lines,
    romio_hints_file,
    shell_value,
)
from autotune.hints._export import DIALECTS, FORMATS, Dialect, ExportDestination, render
from autotune.hints._flavour import flavour_problem
from autotune.hints._settings import BurstBuffer, NearNode, Settings, Stripe, resolve
from autotune.space import AGGREGATOR_SETTINGS, PHASE_SETTINGS, acting, inert, measured_phases

__all__ = [
    "AGGREGATOR_SETTINGS", "DIALECTS", "FORMATS", "PHASE_SETTINGS", "BurstBuffer", "Dialect", "ExportDestination", "NearNode",
    "Settings", "Stripe", "acting", "dw_lines", "flavour_problem", "h5py_settings", "h5py_snippet", "inert", "job_lines",
    "lfs_setstripe", "measured_phases", "mpich_mpiio_hints", "pcc_lines", "rabbit_lines", "render", "resolve",
    "romio_hints_file", "shell_value",
]

"""Built-in benchmark kernels (the only modules importing mpi4py/h5py); run one with

    mpiexec -n R python -m mpi4py -m autotune.kernels.{ior,h5write,vpic} [options]

Rank 0 prints one JSON line (``"autotune_record": 1``): bytes per phase, per-phase seconds and
bandwidth (slowest rank, open→write→sync→close), the hints requested, the hints in effect
(``MPI_File_get_info``), the aggregators used and the requested hints that did not take effect.
"""

from autotune.kernels._spec import KERNELS, Kernel, KernelOption

__all__ = ["KERNELS", "Kernel", "KernelOption"]

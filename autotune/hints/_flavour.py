"""Which export formats an MPI library reads: a format the target's library ignores is refused, not exported.

``MPICH_MPIIO_HINTS`` is an environment variable of Cray MPICH's MPI-IO (HPE Cray MPICH man page
``intro_mpi``, "MPICH_MPIIO_HINTS"); ROMIO elsewhere reads a ``ROMIO_HINTS`` file. ``OMPI_MCA_*`` parameters
and OMPIO are Open MPI's (Open MPI documentation, "Setting MCA parameter values"): an MPICH program reads
neither, and the ROMIO hints of an MPICH campaign do not act under OMPIO.
"""

from __future__ import annotations

# format -> the MPI flavour that reads it, and what it is
ONLY_FOR: dict[str, tuple[str, str]] = {
    "mpich": ("cray-mpich", "MPICH_MPIIO_HINTS is read only by Cray MPICH"),
    "ompi": ("openmpi", "OMPI_MCA_* parameters and OMPIO are Open MPI's"),
}
# what to use instead on each flavour
INSTEAD = {"cray-mpich": "--format mpich (MPICH_MPIIO_HINTS) or --format env",
           "mpich": "--format romio (a ROMIO_HINTS file) or --format env",
           "openmpi": "--format ompi or --format env"}


def flavour_problem(fmt: str, mpi_flavour: str, system: str) -> str | None:
    """Why export format ``fmt`` is useless on ``system`` running ``mpi_flavour`` (one line), or None."""
    if fmt not in ONLY_FOR or ONLY_FOR[fmt][0] == mpi_flavour:
        return None
    return (f"{ONLY_FOR[fmt][1]}; system {system!r} runs {mpi_flavour}, which ignores them: use "
            f"{INSTEAD.get(mpi_flavour, '--format env')}")

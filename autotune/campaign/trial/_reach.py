"""Parameters that cannot reach an opaque command are not searched.

A built-in kernel takes every parameter (MPI-IO hints through MPI_Info, HDF5 settings as arguments). A user
command receives MPI-IO hints through the ROMIO hints file or ``MPICH_MPIIO_HINTS`` and striping through its
directory, but an HDF5 setting such as the alignment is set in the application's code: it reaches the app
only if the app reads ``AUTOTUNE_PARAM_*`` itself, which the campaign says with ``app.reads``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from autotune.launch import AppSpec
from autotune.space import SearchSpace
from autotune.systems import mca_args

# Parameters whose only way into an application is the AUTOTUNE_PARAM_* environment.
ENV_ONLY_PREFIXES = ("hdf5.",)


def launch_io(launcher: Mapping[str, Any], app: AppSpec) -> str | None:
    """The Open MPI io component the launch itself selects (``--mca io X`` in ``launcher.mpiexec_args``, else
    ``OMPI_MCA_io`` in ``app.env``), or None (the space's ``ompi.io``, else Open MPI's default, OMPIO)."""
    args = launcher.get("mpiexec_args")
    chosen = mca_args([str(a) for a in args] if isinstance(args, list) else []).get("io")
    return chosen or dict(app.env).get("OMPI_MCA_io") or None


def _env(name: str) -> str:
    return "AUTOTUNE_PARAM_" + name.upper().replace(".", "_")


def unreachable(app: AppSpec, space: SearchSpace, mpi_flavour: str = "", io: str | None = None) -> dict[str, str]:
    """Searched parameters ``app`` cannot receive, each with the notice that says so: HDF5 settings (set in the
    application's code), and under Open MPI's OMPIO (``io``: the launch's selection) the MPI-IO hints, which a
    command receives only in a ROMIO_HINTS file that OMPIO never reads (Open MPI's MPI-IO documentation)."""
    if app.kernel is not None:
        return {}
    names = {p.name for p in space.params}
    ompio_only = mpi_flavour == "openmpi" and (io or "ompio") == "ompio" and "ompi.io" not in names
    out = {}
    for p in space.params:
        if p.name in app.reads:
            continue
        if p.name.startswith(ENV_ONLY_PREFIXES):
            out[p.name] = (f"{p.name}: not searched: a command cannot receive it (it is set in the application's code); "
                           f"if your app reads ${_env(p.name)}, add {p.name} to app.reads")
        elif ompio_only and p.name.startswith("mpiio."):
            out[p.name] = (f"{p.name}: not passed, so not searched: under OMPIO a command receives MPI-IO hints only "
                           f"in its own MPI_Info (OMPIO reads no ROMIO_HINTS file); if your app copies "
                           f"${_env(p.name)} into MPI_Info, add {p.name} to app.reads")
    return out

"""Parameters that cannot reach an opaque command are not searched.

A built-in kernel takes every parameter (MPI-IO hints through MPI_Info, HDF5 settings as arguments). A user
command receives MPI-IO hints through the ROMIO hints file or ``MPICH_MPIIO_HINTS`` and striping through its
directory, but an HDF5 setting such as the alignment is set in the application's code: it reaches the app
only if the app reads ``AUTOTUNE_PARAM_*`` itself, which the campaign says with ``app.reads``.
"""

from __future__ import annotations

from autotune.launch import AppSpec
from autotune.space import SearchSpace

# Parameters whose only way into an application is the AUTOTUNE_PARAM_* environment.
ENV_ONLY_PREFIXES = ("hdf5.",)


def unreachable(app: AppSpec, space: SearchSpace) -> dict[str, str]:
    """Searched parameters ``app`` cannot receive, each with the notice that says so."""
    if app.kernel is not None:
        return {}
    out = {}
    for p in space.params:
        if p.name.startswith(ENV_ONLY_PREFIXES) and p.name not in app.reads:
            env = "AUTOTUNE_PARAM_" + p.name.upper().replace(".", "_")
            out[p.name] = (f"{p.name}: not searched: a command cannot receive it (it is set in the application's code); "
                           f"if your app reads ${env}, add {p.name} to app.reads")
    return out

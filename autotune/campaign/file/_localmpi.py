"""``system: local`` means this host: its MPI is the one the campaign's launcher runs, detected as its cores are.

The built-in ``local`` profile says ``mpi: {flavour: detect}``. Under the ``local`` launcher, with ranks started by
``mpiexec``, the flavour becomes the MPI that ``mpiexec`` belongs to (``systems.detect_mpi``: ``mpiexec
--version`` for a command, mpi4py through the launcher for a built-in kernel), so an Open MPI program gets the
Open MPI flavour (its ``ompi.*`` knobs, OMPI_MCA_* delivery). Elsewhere (Slurm, the model, no mpiexec) or when
nothing answers, the profile's MPICH stays and ``check``/``tune`` say what could not be detected.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from autotune.launch import AppSpec
from autotune.systems import MPI_FLAVOURS, SystemProfile, detect_mpi


def local_mpi(system: SystemProfile, app: AppSpec, launcher: Mapping[str, Any]) -> SystemProfile:
    """``system`` with its flavour detected when the profile asks for it (``mpi_detect``) and this host runs it."""
    if not system.mpi_detect or launcher.get("name") != "local" or not (app.kernel is not None or app.mpiexec):
        return system
    mpiexec, python, args = (launcher.get(k) for k in ("mpiexec", "python", "mpiexec_args"))
    env = {**os.environ, **{str(k): str(v) for k, v in dict(app.env).items()}}
    stack = detect_mpi(mpiexec if isinstance(mpiexec, str) else "mpiexec", python if isinstance(python, str) else None,
                       [str(a) for a in args] if isinstance(args, list) else [], env, command=app.kernel is None)
    flavour = stack.flavour
    if stack.error or flavour not in MPI_FLAVOURS:
        return replace(system, mpi_source=f"not detected ({stack.error or stack.library.describe()}): "
                                          f"assumed {system.mpi_flavour}")
    return replace(system, mpi_flavour=str(flavour), mpi_source=f"detected: {stack.library.summary or stack.library.describe()}")

"""The two MPI stacks the tests run on this machine: Debian's MPICH (the default ``mpiexec``) and Debian's
Open MPI beside it (``mpiexec.openmpi``, with mpi4py built against it in its own virtual environment, made by
``make setup-ompi``: ``OMPI_VENV``, default ``.venv-ompi`` at the repository root)."""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

from autotune._paths import find_named

REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Stack:
    """How to start ranks of one MPI: ``argv(ranks)`` is the launcher prefix; ``python`` has mpi4py for it."""

    name: str            # mpich | openmpi
    mpiexec: str
    mpiexec_args: tuple[str, ...]
    python: str
    env: tuple[tuple[str, str], ...] = ()

    def argv(self, ranks: int) -> list[str]:
        return [self.mpiexec, "-n", str(ranks), *self.mpiexec_args]

    def environ(self) -> dict[str, str]:
        """The current environment plus what this stack needs, with this repository first on the path."""
        path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
        return {**os.environ, **dict(self.env), "PYTHONPATH": path}


def ompi_python() -> Path:
    return Path(os.environ.get("OMPI_VENV", str(REPO / ".venv-ompi"))).absolute() / "bin" / "python"


def mpich_stack() -> Stack:
    return Stack("mpich", "mpiexec", (), sys.executable)


def openmpi_stack() -> Stack | None:
    """Open MPI, or None when it is not installed here (``make setup-ompi`` installs it and its mpi4py)."""
    if shutil.which("mpiexec.openmpi") is None or not ompi_python().exists():
        return None
    # As root Open MPI refuses to start without these; on 2 cores 4 ranks need --oversubscribe.
    env = (("OMPI_ALLOW_RUN_AS_ROOT", "1"), ("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"), ("OMPI_MCA_rmaps_base_oversubscribe", "1"))
    return Stack("openmpi", "mpiexec.openmpi", ("--oversubscribe",), str(ompi_python()), env)


MISSING_OPENMPI = "Open MPI or its mpi4py is not installed here: run `make setup-ompi` (make test does)"


def local_system_file(directory: Path, flavour: str) -> Path:
    """The built-in ``local`` profile with its MPI flavour set to ``flavour`` (this machine runs both MPIs),
    written as ``<directory>/local-<flavour>.yaml`` for a campaign's ``system:``."""
    source = find_named("search_spaces/systems", "local")
    assert source is not None, "the built-in local profile is missing"
    data = yaml.safe_load(source.read_text(encoding="utf-8"))
    data["name"] = f"local-{flavour}"
    data["description"] = f"this machine (one node, local disk) with its {flavour} installation"
    data["mpi"] = {**(data.get("mpi") or {}), "flavour": flavour}
    path = directory / f"local-{flavour}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path

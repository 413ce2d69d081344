"""Turning a request into an argv, an environment and hint files (shared by the local and Slurm launchers)."""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from autotune._safefile import write_file
from autotune.hints import mpich_mpiio_hints, romio_hints_file
from autotune.kernels import KERNELS
from autotune.launch._base import RunRequest

_PLACEHOLDERS = ("data_dir", "run_dir", "ranks", "nodes", "trial", "repetition", "hints_file")
# Only these exact placeholders are replaced; any other brace is passed through untouched.
_PLACEHOLDER_RE = re.compile(r"\{(" + "|".join(_PLACEHOLDERS) + r")\}")


@dataclass
class AppCommand:
    """The app part of a command line (without mpiexec/srun), its environment and the files to write first."""

    argv: list[str]
    env: dict[str, str]
    files: dict[Path, str] = field(default_factory=dict)

    def write_files(self) -> None:
        for path, text in self.files.items():
            write_file(path, text)


def param_env(request: RunRequest) -> dict[str, str]:
    """``AUTOTUNE_PARAM_LUSTRE_STRIPE_COUNT=4``-style variables for every setting the trial passes
    (``settings.config``): none for a setting left at the system's default, so the default trial gets only the
    campaign's fixed settings and a program that copies them into ``MPI_Info`` keeps its own baseline."""
    env = {f"AUTOTUNE_PARAM_{k.upper().replace('.', '_')}": str(v) for k, v in request.settings.config.items()}
    env.update(AUTOTUNE_TRIAL=str(request.trial), AUTOTUNE_REPETITION=str(request.repetition),
               AUTOTUNE_DATA_DIR=str(request.data_dir), AUTOTUNE_RUN_DIR=str(request.run_dir),
               AUTOTUNE_CAMPAIGN=request.campaign)
    if request.settings.hdf5_alignment:
        env["AUTOTUNE_HDF5_ALIGNMENT"] = str(request.settings.hdf5_alignment)
    return env


def hint_env(request: RunRequest, files: dict[Path, str], data_dir: str | None = None) -> dict[str, str]:
    """Hints the way the system's MPI takes them: MPICH_MPIIO_HINTS (Cray) or a ROMIO_HINTS file."""
    info = request.settings.info
    env: dict[str, str] = {}
    if not info:
        return env
    if request.system.is_cray:
        base = data_dir if data_dir is not None else str(request.data_dir)
        patterns = [p if p.startswith(("/", "$", "*")) else f"{base}/{p}" for p in request.app.hint_files]
        env["MPICH_MPIIO_HINTS"] = mpich_mpiio_hints(info, patterns)
    else:
        path = request.run_dir / "romio-hints.txt"
        files[path] = romio_hints_file(info)
        env["ROMIO_HINTS"] = str(path)
    return env


def mca_env(request: RunRequest) -> dict[str, str]:
    """Open MPI's MCA parameters of the trial as ``OMPI_MCA_<name>`` variables (Open MPI reads every MCA
    parameter from the environment so; the local and Slurm launchers both pass ``AppCommand.env``)."""
    return {f"OMPI_MCA_{k}": v for k, v in request.settings.mca.items()}


def hints_display_env(mpi_flavour: str) -> dict[str, str]:
    """The MPI library's own switch that prints the hints in effect at file open (parsed by autotune.measure)."""
    # Open MPI: read by its romio321 component only (OMPIO prints nothing, and its File.Get_info is an echo)
    return {"cray-mpich": {"MPICH_MPIIO_HINTS_DISPLAY": "1"}, "mpich": {"ROMIO_PRINT_HINTS": "1"},
            "openmpi": {"ROMIO_PRINT_HINTS": "1"}}.get(mpi_flavour, {})


def app_command(request: RunRequest, python: str | None = None, data_dir: str | None = None) -> AppCommand:
    """The app's argv/env/files for one repetition. ``data_dir`` overrides the data path (e.g. $DW_JOB_STRIPED)."""
    app = request.app
    files: dict[Path, str] = {}
    data = data_dir if data_dir is not None else str(request.data_dir)
    env = {**dict(app.env), **param_env(request), **mca_env(request)}
    env["AUTOTUNE_DATA_DIR"] = data
    if app.kernel is not None:
        kernel = KERNELS.get(app.kernel)
        hints_file = request.run_dir / "mpi-info.json"
        files[hints_file] = json.dumps(request.settings.info, sort_keys=True)
        argv = kernel.argv(kernel.resolve(app.args, app.ranks), python or sys.executable, data, str(hints_file),
                           request.settings.hdf5_alignment)
        return AppCommand(argv, env, files)
    env.update(hint_env(request, files, data_dir))
    for key, value in hints_display_env(request.system.mpi_flavour).items():
        env.setdefault(key, value)
    values = {"data_dir": data, "run_dir": str(request.run_dir), "ranks": str(app.ranks), "nodes": str(app.nodes),
              "trial": str(request.trial), "repetition": str(request.repetition),
              "hints_file": env.get("ROMIO_HINTS", "")}
    argv = [_PLACEHOLDER_RE.sub(lambda m: values[m.group(1)], item) for item in app.command]
    env.update({k: _PLACEHOLDER_RE.sub(lambda m: values[m.group(1)], v) for k, v in app.env.items() if "{" in v})
    return AppCommand(argv, env, files)

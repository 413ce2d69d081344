"""A command gets its MPI library's own hint display switch; the user's app.env wins."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from autotune.launch._command import app_command, hints_display_env
from autotune.systems import load_system
from autotune.testing import command_request


def test_display_switch_per_mpi_flavour() -> None:
    assert hints_display_env("mpich") == {"ROMIO_PRINT_HINTS": "1"}
    assert hints_display_env("cray-mpich") == {"MPICH_MPIIO_HINTS_DISPLAY": "1"}
    # Open MPI's romio321 component prints ROMIO's real values with it (OMPIO prints nothing)
    assert hints_display_env("openmpi") == {"ROMIO_PRINT_HINTS": "1"}
    assert hints_display_env("intel-mpi") == {}


def test_a_command_on_upstream_mpich_prints_its_hints(tmp_path: Path) -> None:
    req = command_request(tmp_path, ["./app"])
    env = app_command(req).env
    assert env["ROMIO_PRINT_HINTS"] == "1" and env["ROMIO_HINTS"].endswith("romio-hints.txt")


def test_a_command_on_cray_mpich_displays_its_hints_and_app_env_wins(tmp_path: Path) -> None:
    req = command_request(tmp_path, ["./app"])
    req = replace(req, system=load_system("theta"))
    env = app_command(req).env
    assert env["MPICH_MPIIO_HINTS_DISPLAY"] == "1" and "MPICH_MPIIO_HINTS" in env
    quiet = replace(req, app=replace(req.app, env={"MPICH_MPIIO_HINTS_DISPLAY": "0"}))
    assert app_command(quiet).env["MPICH_MPIIO_HINTS_DISPLAY"] == "0"

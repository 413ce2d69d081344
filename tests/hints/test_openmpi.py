"""Open MPI's settings: MCA parameters per io component, delivered as OMPI_MCA_* and exported in its dialect."""

from __future__ import annotations

from pathlib import Path

import pytest

from autotune.hints import inert, render, resolve
from autotune.launch import app_command, repetition_block
from autotune.pattern import IOPattern
from autotune.systems import load_system
from autotune.testing import command_request, local_system_file

PAT = IOPattern(ranks=4, bytes_per_rank=4 << 20)


@pytest.fixture
def ompi(tmp_path: Path):  # type: ignore[no-untyped-def]
    return load_system(str(local_system_file(tmp_path, "openmpi")))


def test_ompio_settings_become_mca_parameters_and_romio_hints_are_dropped(ompi) -> None:  # type: ignore[no-untyped-def]
    s = resolve({"ompi.io": "ompio", "ompi.fcoll": "individual", "ompi.num_aggregators": 2,
                 "mpiio.romio_cb_write": "automatic", "mpiio.cb_nodes": 2}, ompi, ompi.filesystem("disk"), PAT)
    assert s.mca == {"io": "ompio", "fcoll": "individual", "io_ompio_num_aggregators": "2"}
    assert s.info == {"cb_nodes": "2"}  # the standard hint OMPIO honours; romio_cb_write is ROMIO's
    text = render("ompi", s, mpi_flavour="openmpi")
    assert "export OMPI_MCA_fcoll=individual" in text.splitlines()
    assert "mpirun --mca fcoll individual --mca io ompio --mca io_ompio_num_aggregators 2" in text
    assert "ROMIO_HINTS" not in text  # OMPIO reads no hints file
    assert "export OMPI_MCA_io=ompio" in render("job", s, mpi_flavour="openmpi").splitlines()
    romio = render("romio", s, mpi_flavour="openmpi")  # a hints file nobody reads under OMPIO is not advised
    assert romio.startswith("# OMPIO reads no ROMIO hints file") and "cb_nodes=2" in romio and "\ncb_nodes" not in romio


def test_romio321_gets_a_hints_file_and_no_ompio_parameters(ompi) -> None:  # type: ignore[no-untyped-def]
    config = {"ompi.io": "romio321", "ompi.fcoll": "vulcan", "mpiio.romio_cb_write": "disable", "mpiio.cb_nodes": 2}
    s = resolve(config, ompi, ompi.filesystem("disk"), PAT)
    assert s.mca == {"io": "romio321"}
    assert s.info == {"romio_cb_write": "disable", "cb_nodes": "2", "cb_config_list": "*:2"}
    env = render("env", s, mpi_flavour="openmpi")
    assert env.splitlines()[0] == "export OMPI_MCA_io=romio321"
    assert 'export ROMIO_HINTS="$PWD"/romio-hints.txt' in env
    assert inert(config)["ompi.fcoll"].startswith("an OMPIO parameter")


def test_no_mca_parameters_on_mpich() -> None:
    local = load_system("local")
    s = resolve({"ompi.fcoll": "individual", "mpiio.romio_cb_write": "disable"}, local, local.filesystem("disk"), PAT)
    assert s.mca == {} and s.info == {"romio_cb_write": "disable"}
    assert render("ompi", s) == "# MPI_Info hints for the application's MPI_File_open (OMPIO reads no hints file): " \
                                "romio_cb_write=disable"


def test_lustre_striping_reaches_ompio_through_its_fs_component(tmp_path: Path) -> None:
    from autotune.systems import parse_system

    lustre = parse_system({"name": "ompi-lustre", "mpi": {"flavour": "openmpi"},
                           "filesystems": {"scratch": {"kind": "lustre", "osts": 8}}})
    s = resolve({"lustre.stripe_count": 4, "lustre.stripe_size": 4 << 20}, lustre, lustre.filesystem("scratch"), PAT)
    assert s.mca == {"fs_lustre_stripe_width": "4", "fs_lustre_stripe_size": str(4 << 20)}
    job = render("job", s, mpi_flavour="openmpi", path="/scratch/x").splitlines()
    assert "mkdir -p /scratch/x && lfs setstripe -c 4 -S 4m /scratch/x" in job[0]
    assert "export OMPI_MCA_fs_lustre_stripe_width=4" in job


def test_local_and_slurm_launchers_pass_the_mca_environment(tmp_path: Path, ompi) -> None:  # type: ignore[no-untyped-def]
    req = command_request(tmp_path, ["./app"], config={"ompi.io": "ompio", "ompi.fcoll": "individual"})
    from dataclasses import replace

    req = replace(req, system=ompi, settings=resolve(req.config, ompi, ompi.filesystem("disk"), req.app.pattern))
    env = app_command(req).env
    assert env["OMPI_MCA_fcoll"] == "individual" and env["OMPI_MCA_io"] == "ompio"
    assert env["ROMIO_PRINT_HINTS"] == "1"  # printed (with real values) only if romio321 runs
    block = "\n".join(repetition_block(req, {}))
    assert "export OMPI_MCA_fcoll=individual" in block

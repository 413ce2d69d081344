"""The MPI classification on recorded ``MPI_Get_library_version`` texts and ``ompi_info`` output.

This machine's texts are in ``data/`` (MPICH 4.0.2 through mpi4py, Debian's Open MPI 4.1.4 through a C
program, its ``ompi_info --parsable --param io all --level 9``); the others are as published by their
users (NERSC documentation, ReFrame checks, MPI.jl's parser comments): the first line classifies, later lines
are written in the same format. Open MPI 5 and IBM Spectrum MPI (an Open MPI whose text names it, as MPI.jl
checks) follow Open MPI 4.1.4's recorded line.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from autotune.systems import (
    MpiLibrary,
    OpenMpiIoComponents,
    is_romio,
    mca_args,
    ompi_io_component,
    parse_library_version,
    parse_ompi_info_io,
)

DATA = Path(__file__).parent / "data"

CRAY = ("MPI VERSION    : CRAY MPICH version 8.1.25.17 (ANL base 3.4a2)\n"
        "MPI BUILD INFO : Sun Feb 26 15:15 2023 (git hash aecd99f)\n")
CRAY_7 = ("MPI VERSION    : CRAY MPICH version 7.7.10 (ANL base 3.2)\n"
          "MPI BUILD INFO : Built Tue Jul 16 2019 (git hash 1234567) MT-G\n")
INTEL = "Intel(R) MPI Library 2021.6 for Linux* OS\n\n"
INTEL_2019 = "Intel(R) MPI Library 2019 Update 6 for Linux* OS\n"
MVAPICH2 = ("MVAPICH2 Version      :\t2.3.7\nMVAPICH2 Release date :\tWed March 02 22:00:00 EST 2022\n"
            "MVAPICH2 Device       :\tch3:mrail\nMVAPICH2 configure    :\t--prefix=/opt/mvapich2\n")
OMPI_5 = "Open MPI v5.0.3, package: Open MPI builder Distribution, ident: 5.0.3, repo rev: v5.0.3, Apr 08, 2024\x00"
SPECTRUM = "Open MPI v10.4.0, package: IBM Spectrum MPI, ident: 10.4.0, repo rev: v10.4.0, Oct 01, 2020\n"


@pytest.mark.parametrize(("text", "library", "version", "flavour"), [
    ((DATA / "mpich_4.0.2.txt").read_text(), "mpich", "4.0.2", "mpich"),
    ((DATA / "openmpi_4.1.4.txt").read_text(), "openmpi", "4.1.4", "openmpi"),
    (CRAY, "cray-mpich", "8.1.25.17", "cray-mpich"),
    (CRAY_7, "cray-mpich", "7.7.10", "cray-mpich"),
    (INTEL, "intel-mpi", "2021.6", "mpich"),
    (INTEL_2019, "intel-mpi", "2019 Update 6", "mpich"),
    (MVAPICH2, "mvapich", "2.3.7", "mpich"),
    (OMPI_5, "openmpi", "5.0.3", "openmpi"),
    (SPECTRUM, "spectrum-mpi", "10.4.0", "openmpi"),
])
def test_library_versions_are_classified(text: str, library: str, version: str, flavour: str) -> None:
    lib = parse_library_version(text)
    assert (lib.library, lib.version, lib.flavour) == (library, version, flavour)
    assert lib.summary and all(ch.isprintable() for ch in lib.summary)


def test_mpich_device_and_cray_base_are_kept() -> None:
    assert parse_library_version((DATA / "mpich_4.0.2.txt").read_text()).device == "ch4:ucx"
    assert parse_library_version(CRAY).base == "ANL base 3.4a2"
    assert parse_library_version(MVAPICH2).device == "ch3:mrail"
    assert "ANL base 3.4a2" in parse_library_version(CRAY).describe()
    assert parse_library_version((DATA / "mpich_4.0.2.txt").read_text()).summary == "MPICH Version: 4.0.2"


def test_romio_only_for_mpich_family() -> None:
    for text in (CRAY, INTEL, MVAPICH2, (DATA / "mpich_4.0.2.txt").read_text()):
        assert parse_library_version(text).romio_only
    assert not parse_library_version(OMPI_5).romio_only


@pytest.mark.parametrize("text", ["", "\x00", "Microsoft MPI 10.1.12498.18", "MPI library\x1b[31m red"])
def test_unknown_text_is_unknown_not_an_error(text: str) -> None:
    lib = parse_library_version(text)
    assert lib.library == "unknown" and lib.flavour is None and not lib.romio_only
    assert "\x1b" not in lib.summary


def test_ompi_info_recorded_here() -> None:
    io = parse_ompi_info_io((DATA / "ompi_info_io_4.1.4.txt").read_text())
    assert set(io.components) == {"ompio", "romio321"}
    assert io.priorities == {"ompio": 30, "romio321": 10}
    assert (io.selection, io.selection_source) == ("", "default")
    assert ompi_io_component(io, "4.1.4")[0] == "ompio"


def test_ompi_io_selection() -> None:
    io = OpenMpiIoComponents(("romio321", "ompio"), "", "default", {"ompio": 30, "romio321": 10})
    assert ompi_io_component(io, "4.1.4", selection="romio321") == ("romio321", "io selection 'romio321'")
    assert ompi_io_component(io, "4.1.4", selection="^ompio")[0] == "romio321"
    assert ompi_io_component(io, "4.1.4", selection="ompio,romio321")[0] == "ompio"
    component, why = ompi_io_component(io, "4.1.4", selection="romio341")
    assert component == "" and "romio341" in why
    env_selected = OpenMpiIoComponents(io.components, "romio321", "environment", io.priorities)
    assert ompi_io_component(env_selected, "4.1.4")[0] == "romio321"


def test_ompio_steps_back_on_lustre_before_4_1() -> None:
    io = OpenMpiIoComponents(("romio321", "ompio"), "", "default", {"ompio": 30, "romio321": 10})
    assert ompi_io_component(io, "4.0.5", fs_type="lustre")[0] == "romio321"
    assert ompi_io_component(io, "4.1.4", fs_type="lustre")[0] == "ompio"
    assert ompi_io_component(io, "4.0.5", fs_type="ext4")[0] == "ompio"


def test_mca_args() -> None:
    assert mca_args(["--mca", "io", "romio321", "-np", "4", "-mca", "fcoll", "individual"]) == {
        "io": "romio321", "fcoll": "individual"}
    assert mca_args(["--oversubscribe", "--mca", "io"]) == {}
    assert is_romio("romio321") and is_romio("romio341") and not is_romio("ompio")


def test_describe_unknown() -> None:
    assert MpiLibrary("unknown").describe() == "unknown"

"""The profile text for file systems the development machine does not have (Lustre, DataWarp), from recorded
detection results: every value marked, and the text reads back as a profile."""

from __future__ import annotations

from pathlib import Path

import pytest

from autotune._yaml import parse_yaml
from autotune.systems import (
    Detection,
    Fact,
    FileSystemInfo,
    Measured,
    MpiLibrary,
    MpiStack,
    ProbedFolder,
    ProbeResult,
    SystemProfile,
    parse_system,
    site_profile_yaml,
)

LUSTRE = FileSystemInfo("/lustre/scratch/me", "lustre", "lustre", "/lustre/scratch", True, "/proc/self/mountinfo")
DVS = FileSystemInfo("/var/opt/cray/dws/mounts/batch/1_striped_scratch", "dvs", "datawarp",
                     "/var/opt/cray/dws/mounts/batch/1_striped_scratch", True, "/proc/self/mountinfo")
CRAY = MpiStack(MpiLibrary("cray-mpich", "8.1.25.17", base="ANL base 3.4a2"), "romio", "MPICH-derived")


def _profile(targets: list[ProbedFolder], mpi: MpiStack | None = CRAY) -> tuple[str, SystemProfile]:
    detection = Detection(Fact(128, "detected", "SLURM_CPUS_ON_NODE"), targets[0].filesystem, mpi, {})
    probe = ProbeResult(system=[Measured("exchange_bw", 9.5e9, "16 MiB MPI_Sendrecv")],
                        skipped=["collective: the node is busy"])
    text = site_profile_yaml("cray", detection, probe, targets, ["on nid001"])
    return text, parse_system(parse_yaml(text, "t"), "t")


def test_lustre_with_its_ost_count() -> None:
    text, system = _profile([ProbedFolder(Path(LUSTRE.path), LUSTRE, [Measured("posix_file_bw", 1.2e9, "64 MiB")], 48)])
    fs = system.filesystem()
    assert (fs.kind, fs.osts, system.mpi_flavour, system.cores_per_node) == ("lustre", 48, "cray-mpich", 128)
    assert "osts: 48" in text and "# detected: lfs df" in text
    assert "flavour: cray-mpich" in text and "# detected: cray-mpich 8.1.25.17 (ANL base 3.4a2), MPI-IO romio" in text
    assert "# not measured: collective: the node is busy" in text and text.startswith("# on nid001")


def test_lustre_without_lfs_and_datawarp_are_posix_with_the_reason() -> None:
    text, system = _profile([ProbedFolder(Path(LUSTRE.path), LUSTRE), ProbedFolder(Path(DVS.path), DVS)])
    assert [fs.kind for fs in system.filesystems.values()] == ["posix", "posix"]
    assert "Lustre without `lfs df` here: modelled as POSIX (assumed)" in text
    assert "DataWarp's pools are not visible to a probe: modelled as POSIX (assumed)" in text


def test_unknown_mpi_is_assumed_with_the_reason() -> None:
    broken = MpiStack(MpiLibrary("unknown"), error="mpiexec: No such file or directory")
    text, system = _profile([ProbedFolder(Path(LUSTRE.path), LUSTRE, (), 8)], broken)
    assert system.mpi_flavour == "mpich"
    assert "# assumed: the MPI could not be told (mpiexec: No such file or directory)" in text


def test_no_file_system_is_an_error() -> None:
    with pytest.raises(ValueError, match="at least one file system"):
        site_profile_yaml("x", Detection(Fact(1, "detected", "x"), None, None, {}), ProbeResult(), [])

"""An export format the target's MPI library ignores is refused with the format that works instead."""

from __future__ import annotations

from autotune.hints import FORMATS, flavour_problem


def test_mpich_hints_are_for_cray_mpich_only() -> None:
    assert flavour_problem("mpich", "cray-mpich", "theta") is None
    problem = flavour_problem("mpich", "mpich", "local")
    assert problem is not None
    assert problem.startswith("MPICH_MPIIO_HINTS is read only by Cray MPICH; system 'local' runs mpich")
    assert "use --format romio" in problem and "\n" not in problem
    assert "use --format ompi" in str(flavour_problem("mpich", "openmpi", "local"))


def test_every_other_format_suits_every_flavour() -> None:
    for fmt in FORMATS:
        if fmt not in ("mpich", "ompi"):
            for flavour in ("cray-mpich", "openmpi", "mpich"):
                assert flavour_problem(fmt, flavour, "x") is None, (fmt, flavour)


def test_open_mpi_parameters_are_for_open_mpi_only() -> None:
    """An MPICH campaign's ROMIO hints do not act under OMPIO, and an MPICH program reads no OMPI_MCA_*."""
    assert flavour_problem("ompi", "openmpi", "dell-lustre-ee") is None
    for flavour, instead in (("mpich", "--format romio"), ("cray-mpich", "--format mpich")):
        problem = flavour_problem("ompi", flavour, "x")
        assert problem is not None and problem.startswith("OMPI_MCA_* parameters and OMPIO are Open MPI's")
        assert instead in problem and "\n" not in problem

"""An export format the target's MPI library ignores is refused with the format that works instead."""

from __future__ import annotations

from autotune.hints import FORMATS, flavour_problem


def test_mpich_hints_are_for_cray_mpich_only() -> None:
    assert flavour_problem("mpich", "cray-mpich", "theta") is None
    problem = flavour_problem("mpich", "openmpi", "local")
    assert problem is not None
    assert problem.startswith("MPICH_MPIIO_HINTS is read only by Cray MPICH; system 'local' runs openmpi")
    assert "use --format romio" in problem and "\n" not in problem


def test_every_other_format_suits_every_flavour() -> None:
    for fmt in FORMATS:
        if fmt != "mpich":
            for flavour in ("cray-mpich", "openmpi", "mpich"):
                assert flavour_problem(fmt, flavour, "x") is None, (fmt, flavour)

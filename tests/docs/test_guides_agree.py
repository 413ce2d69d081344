"""The guides agree with the code and with each other where a contradiction can be stated mechanically: every
``--format`` choice is documented, no supported MPI stack is called unsupported, and the front door (README,
getting started) shows the Open MPI path as well as MPICH's."""

from __future__ import annotations

import re
from pathlib import Path

from autotune.hints import DIALECTS
from autotune.systems import MPI_FLAVOURS

REPO = Path(__file__).resolve().parents[2]
GUIDES = [*sorted((REPO / "docs" / "guide").glob("*.md")), REPO / "README.md"]
# the stacks autotune supports (system profiles' mpi.flavour) as the guides name them, and their MPI-IO components
STACKS = {"mpich": ("MPICH",), "cray-mpich": ("Cray MPICH",), "openmpi": ("Open MPI", "OMPIO", "romio321")}
UNSUPPORTED = re.compile(r"\b(not supported|unsupported|no support)\b", re.IGNORECASE)


def _paragraphs(text: str) -> list[str]:
    """Paragraphs, with every table row on its own."""
    out: list[str] = []
    for block in re.split(r"\n\s*\n", text):
        rows = [ln for ln in block.splitlines() if ln.lstrip().startswith("|")]
        out += rows if rows else [" ".join(block.split())]
    return out


def unsupported_claims(text: str) -> list[str]:
    """The paragraphs (or table rows) that call a supported stack unsupported."""
    names = [n for flavour in MPI_FLAVOURS for n in STACKS[flavour]]
    return [p for p in _paragraphs(text) if UNSUPPORTED.search(p) and any(n in p for n in names)]


def test_every_format_choice_is_documented() -> None:
    text = (REPO / "docs" / "guide" / "export-dialects.md").read_text(encoding="utf-8")
    missing = [name for name in DIALECTS.names() if not re.search(rf"`[^`]*--format {re.escape(name)}`", text)]
    assert not missing, f"export-dialects.md does not document --format {', '.join(missing)}"


def test_no_guide_calls_a_supported_stack_unsupported() -> None:
    # the line your-application.md once had, while open-mpi.md documented the same stack: the check catches it
    assert unsupported_claims("| any, Open MPI | not supported: OMPIO reads neither variable | MPI_Info_set |")
    found = {p.name: claims for p in GUIDES if (claims := unsupported_claims(p.read_text(encoding="utf-8")))}
    assert not found, found


def test_the_front_door_shows_the_open_mpi_path() -> None:
    for page in (REPO / "README.md", REPO / "docs" / "guide" / "getting-started.md"):
        text = page.read_text(encoding="utf-8")
        assert "make setup-ompi" in text and "space: local-openmpi" in text and "mpiexec.openmpi" in text, page.name
    assert len((REPO / "README.md").read_text(encoding="utf-8").splitlines()) <= 250

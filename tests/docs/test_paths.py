"""Every module path the docs name exists, and no doc points at a file outside the repository.

A path is found as written: a file path under the package (``campaign/run/_loop.py``, ``autotune/space/_thumb.py``,
``cli/_errors.describe``), a dotted name (``campaign.run._loop``, ``measure._sanity``, ``_storelock.store_lock``),
a private module named alone (``_diverse.py``, ``_resume.in_space``: some module of that name must exist), or a
repository file (``tests/test_layers.py``). A reference outside the repository (``../shared``, ``shared/X.md``)
fails whatever it names."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
OUTSIDE = re.compile(r"\.\./shared\b|(?<![\w/.-])shared/[\w.-]+|/work/(?:shared|main|wt)\b|(?<![\w/.-])PLATFORM\.md")
WORD = r"[A-Za-z_][A-Za-z0-9_]*"
SLASHED = re.compile(rf"(?<![\w/.-])((?:autotune/)?{WORD}(?:/{WORD})+)(\.py\b)?")
DOTTED = re.compile(rf"(?<![\w/.-])((?:autotune\.)?{WORD}(?:\.{WORD})+)")
ALONE = re.compile(rf"(?<![\w/.-])(_{WORD})(?:\.py\b|\.{WORD})")
REPO_FILE = re.compile(r"(?<![\w/.-])((?:tests|experiments|docs)/[\w/.-]+\.(?:py|md))\b")


def _tops(package: Path) -> set[str]:
    """Names that start a package path: the subpackages and the root modules."""
    return {p.name for p in package.iterdir() if (p / "__init__.py").exists()} | {
        p.stem for p in package.glob("*.py") if p.stem != "__init__"}


def _resolves(package: Path, parts: list[str], is_file: bool) -> bool:
    """The parts name a module or package below ``package``; after a module, at most attribute names follow.
    ``is_file``: written with ``.py``, so the last part must be a module file."""
    here = package
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if (here / part / "__init__.py").exists() and not (last and is_file):
            here = here / part
            continue
        if (here / f"{part}.py").exists():
            return True  # a module: what follows is an attribute of it
        if is_file or part.startswith("_") or here == package:
            return False  # a private module that is not there (a package's public names are not checked)
        return True  # a public name of a package's face
    return True


def bad_paths(text: str, repo: Path) -> list[str]:
    """The module paths ``text`` names that do not exist in ``repo``, and its references outside it."""
    package = repo / "autotune"
    tops = _tops(package)
    modules = {p.stem for p in package.rglob("_*.py")} | {p.name for p in package.rglob("_*") if p.is_dir()}
    bad = [m.group(0) for m in OUTSIDE.finditer(text)]
    for m in SLASHED.finditer(text):
        parts = m.group(1).removeprefix("autotune/").split("/")
        if parts[0] in tops and not _resolves(package, parts, bool(m.group(2))):
            bad.append(m.group(0))
    for m in DOTTED.finditer(text):
        parts = m.group(1).removeprefix("autotune.").split(".")
        if parts[0] in tops and parts[-1] not in ("py", "md", "yaml") and not _resolves(package, parts, False):
            bad.append(m.group(0))
    for m in ALONE.finditer(text):
        if m.group(1) not in modules and m.group(1) not in tops:
            bad.append(m.group(0))
    bad += [m.group(1) for m in REPO_FILE.finditer(text) if "*" not in m.group(1) and not (repo / m.group(1)).exists()]
    return bad


def test_every_path_in_the_docs_exists() -> None:
    found = {str(p.relative_to(REPO)): bad_paths(p.read_text(encoding="utf-8"), REPO)
             for p in sorted((REPO / "docs").rglob("*.md"))}
    assert {k: v for k, v in found.items() if v} == {}


def test_the_design_map_has_lines_of_normal_length() -> None:
    long = [n for n, line in enumerate((REPO / "docs" / "DESIGN.md").read_text(encoding="utf-8").splitlines(), 1)
            if len(line) > 120 and not line.startswith("|")]
    assert long == [], f"docs/DESIGN.md: lines over 120 characters (not table rows): {long}"


def test_the_check_catches_a_planted_bad_path() -> None:
    good = ("`campaign/run/_loop.py`, `autotune/space/_thumb.py`, `campaign.run._loop`, `measure._sanity`, "
            "`_storelock.store_lock`, `cli/_errors.describe`, `campaign.study.data_in_use`, `_resume.in_space`, "
            "`tests/test_layers.py`, `model.crossval_report`")
    assert bad_paths(good, REPO) == []
    planted = ("`campaign/_stores.py`, `campaign._names.data_root_for`, `autotune/space/_nowhere.py`, "
               "`campaign/_stack.check_stack`, `_nowhere_at_all.py`, `tests/test_nothing.py`, `../shared/DESIGN.md`, "
               "see shared/PLATFORM.md, PLATFORM.md's figure")
    assert bad_paths(planted, REPO) == [
        "../shared", "shared/PLATFORM.md", "PLATFORM.md", "campaign/_stores.py", "autotune/space/_nowhere.py", "campaign/_stack",
        "campaign._names.data_root_for", "_nowhere_at_all.py", "tests/test_nothing.py"]

"""Tests reach a package through its face: a test imports private modules (``autotune.x._y``) only of the package
its folder mirrors (tests/launch/ -> autotune/launch/); anything else it needs is public (exported by the package's
``__init__``) or the test moves to the mirror. ``KNOWN`` lists the imports not yet moved; a new one fails here."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent

KNOWN = {  # (test file, private module) pairs that predate the rule, each to be moved or made public
    ("campaign/trial/test_baseline.py", "autotune.launch._command"),
    ("campaign/check/test_check.py", "autotune.launch._local"),
    ("campaign/trial/test_reach_openmpi.py", "autotune.launch._command"),
    ("campaign/trial/test_reservation.py", "autotune.launch._persistent"),
    ("contracts/examples.py", "autotune.model._scenarios"),
    ("darshan/test_extractor.py", "autotune.measure._darshan"),
    ("darshan/test_extractor.py", "autotune.measure._darshanfile"),
    ("hints/test_bb_default.py", "autotune.model._scenarios"),
    ("hints/test_openmpi.py", "autotune.launch._jobscript"),
    ("robustness/test_edges.py", "autotune.campaign.study._stores"),
    ("launch/test_contracts.py", "autotune.model._scenarios"),
    ("report/test_model_compare.py", "autotune.model._scenarios"),
    ("robustness/test_kill_loop.py", "autotune.campaign.file._names"),
    ("robustness/test_kill_steps.py", "autotune.campaign.study._study"),
    ("robustness/test_metric_sanity.py", "autotune.measure._extract"),
    ("robustness/test_planted_links.py", "autotune.launch._tree"),
    ("robustness/test_plausible.py", "autotune.measure._plausible"),
    ("robustness/test_resume_kill.py", "autotune.campaign.study._stores"),
    ("robustness/test_runs_contained.py", "autotune.launch._process"),
    ("robustness/test_storage_faults.py", "autotune.campaign.study._stores"),
    ("robustness/test_stray_children.py", "autotune.launch._process"),
    ("robustness/test_study_names.py", "autotune.campaign.file._names"),
    ("robustness/test_untrusted_values.py", "autotune.service._fallback"),
    ("robustness/test_untrusted_values.py", "autotune.service._spool"),
}


def private_imports(path: Path) -> set[str]:
    """The ``autotune.<package>...._<module>`` modules ``path`` imports (root modules such as autotune._yaml aside)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and node.module:  # `from autotune.model import _scenarios` names one too
            public = not any(p.startswith("_") for p in node.module.split("."))
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names if public and a.name.startswith("_"))]
        for name in names:
            parts = name.split(".")
            if parts[0] == "autotune" and len(parts) > 2 and any(p.startswith("_") for p in parts[2:]):
                found.add(name)
    return found


def crossings() -> set[tuple[str, str]]:
    out = set()
    for path in sorted(TESTS.rglob("*.py")):
        rel = path.relative_to(TESTS)
        mirror = rel.parts[0] if len(rel.parts) > 1 else None
        out |= {(rel.as_posix(), m) for m in private_imports(path) if m.split(".")[1] != mirror}
    return out


def test_tests_import_private_modules_only_of_the_package_they_mirror() -> None:
    new = crossings() - KNOWN
    assert not new, "import through the package's face (or move the test to its mirror): " + ", ".join(
        f"{f} imports {m}" for f, m in sorted(new))


def test_the_known_list_holds_only_imports_that_still_exist() -> None:
    assert not KNOWN - crossings(), f"moved or made public, drop from KNOWN: {sorted(KNOWN - crossings())}"

"""Tests reach a package through its face: a test imports private modules (``autotune.x._y``) only of the package
its folder mirrors (tests/launch/ -> autotune/launch/); anything else it needs is public (exported by the package's
``__init__``) or the test moves to the mirror. The evaluation (experiments/) mirrors nothing: it uses faces only."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
EXPERIMENTS = TESTS.parent / "experiments"


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
    found = crossings()
    assert not found, "import through the package's face (or move the test to its mirror): " + ", ".join(
        f"{f} imports {m}" for f, m in sorted(found))


def test_the_evaluation_imports_no_private_module() -> None:
    found = {(path.relative_to(EXPERIMENTS).as_posix(), m) for path in sorted(EXPERIMENTS.rglob("*.py"))
             for m in private_imports(path)}
    assert not found, "import through the package's face: " + ", ".join(f"experiments/{f} imports {m}"
                                                                        for f, m in sorted(found))

"""No import circles in the package: every module's imports (at the top of the file, inside a function, and
under ``if TYPE_CHECKING:``, which import-linter counts too) form a graph without a cycle, so each module can be
read and imported after the ones below it. Checked by AST over the whole tree, and the checker on planted circles."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _module(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(tree: ast.AST, modules: set[str], here: str) -> set[str]:
    """The package's modules ``tree`` imports anywhere (``from a import b``: ``a.b`` if it is a module)."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert not node.level, f"{here}: a relative import (the package imports by absolute name)"
            base = node.module or ""
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add(full if full in modules else base)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return {m for m in found if m in modules and m != here}


def import_graph(root: Path) -> dict[str, set[str]]:
    files = {_module(root, p): p for p in (root / "autotune").rglob("*.py")}
    modules = set(files)
    return {m: _imported(ast.parse(p.read_text(encoding="utf-8")), modules, m) for m, p in files.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            connect(module)
    return sorted(found)


def test_the_package_has_no_import_circle() -> None:
    assert circles(import_graph(REPO)) == []


def test_a_planted_circle_is_caught(tmp_path: Path) -> None:
    shutil.copytree(REPO / "autotune", tmp_path / "autotune", ignore=shutil.ignore_patterns("__pycache__", "data"))
    space = tmp_path / "autotune" / "space"
    (space / "_one.py").write_text("from autotune.space._two import B\n\nA = 1\n")
    (space / "_two.py").write_text("def f() -> int:\n    from autotune.space import _one\n\n    return _one.A\n\n\nB = 2\n")
    (space / "_typed.py").write_text("from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
                                     "    from autotune.space._one import A\n")
    (space / "_three.py").write_text("from autotune.space._typed import TYPE_CHECKING\n")
    (space / "_four.py").write_text("from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
                                    "    from autotune.space._five import C\n")
    (space / "_five.py").write_text("from autotune.space._four import TYPE_CHECKING\n\nC = 3\n")
    assert circles(import_graph(tmp_path)) == [["autotune.space._five", "autotune.space._four"],
                                               ["autotune.space._one", "autotune.space._two"]]

"""Imports sit at the top of the file. One inside a function is allowed only for a heavy optional dependency
(MLflow, Ray, SciPy, matplotlib, PyDarshan, ...) or to keep ``autotune ask`` (run in every job script) fast,
and it says so on its line: ``# lazy: <reason in a few words>``. Checked by AST and tokenize over the package,
one case per top-level package (so a package that still has an unmarked one is named), and the checker on
planted sources."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "autotune"
MARKER = re.compile(r"#\s*lazy:\s*(\S.*)$")

# Optional extras (pyproject.toml [project.optional-dependencies]) and the heavy modules they bring: a
# function-level import of one of these needs no other reason than its marker.
OPTIONAL = frozenset({
    "mlflow", "ray", "scipy", "matplotlib", "sklearn", "torch", "darshan", "PIL", "cmaes", "optuna_dashboard",
    "psycopg", "psycopg2", "pyarrow", "mpi4py", "h5py",
})
# Required but heavy: kept out of the start-up of ``autotune ask`` where that path does not need them (SQLAlchemy:
# ask through the gRPC proxy, held by tests/service/test_fast_imports.py). The marker's reason must name ``ask``.
ASK_SPEED = frozenset({"sqlalchemy"})


@dataclass(frozen=True)
class Lazy:
    where: str      # file:line
    module: str     # the imported module (``from a.b import c``: ``a.b``)
    reason: str     # the marker's text, "" when unmarked


def _comments(source: str) -> dict[int, str]:
    """Line number -> the comment text on that line."""
    out: dict[int, str] = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            out[tok.start[0]] = tok.string
    return out


def _reason(node: ast.stmt, comments: dict[int, str]) -> str:
    for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
        m = MARKER.search(comments.get(line, ""))
        if m:
            return m[1].strip()
    return ""


def function_imports(source: str, name: str) -> tuple[list[Lazy], list[str]]:
    """The imports inside functions of ``source`` (with their markers), and the module-level imports that carry
    a ``# lazy:`` marker all the same (a stale marker: they are not lazy)."""
    tree, comments = ast.parse(source), _comments(source)
    found: list[Lazy] = []
    stale: list[str] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                modules = [a.name for a in child.names] if isinstance(child, ast.Import) else [child.module or ""]
                reason = _reason(child, comments)
                if in_function:
                    found.extend(Lazy(f"{name}:{child.lineno}", m, reason) for m in modules)
                elif reason:
                    stale.append(f"{name}:{child.lineno}")
            visit(child, in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda))

    visit(tree, False)
    return found, stale


def problems(source: str, name: str) -> list[str]:
    """One line per import that breaks the rule (see the module doc), naming ``file:line``."""
    found, stale = function_imports(source, name)
    out = [f"{w}: '# lazy:' on a module-level import" for w in stale]
    for lazy in found:
        top = lazy.module.split(".")[0]
        ask_speed = any(lazy.module == m or lazy.module.startswith(f"{m}.") for m in ASK_SPEED)
        if not lazy.reason:
            out.append(f"{lazy.where}: import of {lazy.module} inside a function without '# lazy: <reason>' "
                       "(move it to the top of the file; type-only: under `if TYPE_CHECKING:`)")
        elif ask_speed:
            if "ask" not in lazy.reason:
                out.append(f"{lazy.where}: {lazy.module} is required: lazy only to keep `autotune ask` fast, and "
                           f"the reason must say so (it says {lazy.reason!r})")
        elif top not in OPTIONAL:
            out.append(f"{lazy.where}: {lazy.module} is neither a heavy optional dependency ({', '.join(sorted(OPTIONAL))}) "
                       f"nor kept out of `autotune ask` ({', '.join(sorted(ASK_SPEED))}): move it to the top of the file")
    return out


def _units() -> list[str]:
    """The top-level packages, and ``root`` for the modules directly under autotune/."""
    return ["root", *sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file())]


def _files(unit: str) -> list[Path]:
    if unit == "root":
        return sorted(PACKAGE.glob("*.py"))
    return sorted((PACKAGE / unit).rglob("*.py"))


@pytest.mark.parametrize("unit", _units())
def test_imports_are_at_the_top_or_marked_lazy(unit: str) -> None:
    found = [line for path in _files(unit)
             for line in problems(path.read_text(encoding="utf-8"), str(path.relative_to(PACKAGE.parent)))]
    assert not found, f"{len(found)} function-level import(s) in {unit}:\n" + "\n".join(found)


def test_every_package_is_checked() -> None:
    checked = {p for unit in _units() for p in _files(unit)}
    assert checked == set(PACKAGE.rglob("*.py"))


PLANTED = '''
import json
import yaml  # lazy: stale


def f():
    import os
    from sqlalchemy import text  # lazy: a required module
    from sqlalchemy import (  # lazy: keeps `autotune ask` fast over gRPC
        create_engine,
    )
    import mlflow  # lazy: optional MLflow
    import optuna  # lazy: heavy
    g = lambda: __import__("x")
    return json, os, text, create_engine, mlflow, optuna, g


class C:
    def m(self):
        import ray.util  # lazy: optional Ray
        from autotune.errors import ConfigError
        from autotune.campaigns import x  # lazy: keeps `autotune ask` fast
        return ray, ConfigError, x
'''


def test_the_checker_on_planted_imports() -> None:
    found = problems(PLANTED, "x.py")
    assert found == [
        "x.py:3: '# lazy:' on a module-level import",
        "x.py:7: import of os inside a function without '# lazy: <reason>' (move it to the top of the file; "
        "type-only: under `if TYPE_CHECKING:`)",
        "x.py:8: sqlalchemy is required: lazy only to keep `autotune ask` fast, and the reason must say so "
        "(it says 'a required module')",
        f"x.py:13: optuna is neither a heavy optional dependency ({', '.join(sorted(OPTIONAL))}) "
        f"nor kept out of `autotune ask` ({', '.join(sorted(ASK_SPEED))}): move it to the top of the file",
        "x.py:21: import of autotune.errors inside a function without '# lazy: <reason>' (move it to the top of "
        "the file; type-only: under `if TYPE_CHECKING:`)",
        f"x.py:22: autotune.campaigns is neither a heavy optional dependency ({', '.join(sorted(OPTIONAL))}) "
        f"nor kept out of `autotune ask` ({', '.join(sorted(ASK_SPEED))}): move it to the top of the file",
    ]

"""The layer rules of docs/DESIGN.md as import-linter contracts (pyproject.toml): kept here, and a lower layer
importing a higher one breaks them. And each package's faces: no package imports another package's ``_private``
module (checked over the whole tree by AST here)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LINT = Path(sys.executable).parent / "lint-imports"


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([str(LINT), "--config", str(root / "pyproject.toml"), "--no-cache"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300, check=False)


def test_the_package_keeps_its_layers() -> None:
    proc = _lint(REPO)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout


def test_a_lower_layer_importing_a_higher_one_is_caught(tmp_path: Path) -> None:
    shutil.copytree(REPO / "autotune", tmp_path / "autotune", ignore=shutil.ignore_patterns("__pycache__", "data"))
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "autotune" / "space" / "_upward.py").write_text("from autotune.campaign import Campaign\n")
    (tmp_path / "autotune" / "model" / "_mpi.py").write_text("def f() -> None:\n    from mpi4py import MPI\n")
    (tmp_path / "autotune" / "campaign" / "study" / "_upward.py").write_text("from autotune.campaign.trial import Runtime\n")
    proc = _lint(tmp_path)
    assert proc.returncode != 0
    assert "autotune.space._upward -> autotune.campaign" in proc.stdout
    assert "autotune.campaign.study._upward -> autotune.campaign.trial" in proc.stdout  # campaign's own layers
    assert "autotune.model._mpi -> mpi4py" in proc.stdout


def private_imports(root: Path) -> list[str]:
    """``module -> imported`` for every import (at any depth, absolute or relative) of a ``_private`` module or name
    of package B by a module outside B (the top-level ``autotune._x`` modules are the bottom layer's own public
    modules, and ``autotune.testing`` is a package like the others). A sub-package is a package of its own:
    ``campaign/run`` reaches ``campaign/study`` through its face, and ``campaign/__init__`` through both."""
    import ast

    found = []
    for path in sorted((root / "autotune").rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        inside = parts[1:-1]  # the packages the importing module is in (``__init__`` is in its own)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.ImportFrom):
                if node.level:  # relative: resolved against the importing module's package
                    base = module.split(".")[: len(module.split(".")) - node.level + (parts[-1] == "__init__")]
                    name = ".".join([*base, node.module] if node.module else base)
                else:
                    name = node.module or ""
                names = [name] + [f"{name}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for imported in names:
                bits = imported.split(".")
                if bits[0] != "autotune" or len(bits) < 3:
                    continue
                private = [i for i, b in enumerate(bits) if i >= 2 and b.startswith("_") and not b.startswith("__")]
                if not private:
                    continue
                owner = bits[1:private[0]]  # the package the private module (or a module's private name) is in
                while owner and not (root / "autotune" / Path(*owner)).is_dir():
                    owner = owner[:-1]
                if tuple(owner) != inside[: len(owner)]:
                    found.append(f"{module} -> {imported}")
    return sorted(set(found))


def test_no_package_imports_another_packages_private_modules() -> None:
    assert private_imports(REPO) == []


def test_a_private_import_across_packages_is_caught(tmp_path: Path) -> None:
    shutil.copytree(REPO / "autotune", tmp_path / "autotune", ignore=shutil.ignore_patterns("__pycache__", "data"))
    (tmp_path / "autotune" / "report" / "_reach.py").write_text(
        "def f() -> None:\n    from autotune.campaign.study._study import ran_trials\n")
    (tmp_path / "autotune" / "testing" / "_peek.py").write_text("from autotune.launch import _tree\n")
    (tmp_path / "autotune" / "launch" / "_own.py").write_text("from autotune.launch._tree import proc_stat\n")
    (tmp_path / "autotune" / "campaign" / "run" / "_rel.py").write_text("from ..study import _study\n")
    (tmp_path / "autotune" / "campaign" / "run" / "_own.py").write_text("from autotune.campaign.run._steps import LoopSteps\n")
    (tmp_path / "autotune" / "campaign" / "_face.py").write_text("from autotune.campaign.file._config import Campaign\n")
    (tmp_path / "autotune" / "report" / "_rel.py").write_text("from ..measure import _bootstrap\n")
    found = private_imports(tmp_path)
    assert "autotune.report._reach -> autotune.campaign.study._study" in found
    assert "autotune.testing._peek -> autotune.launch._tree" in found
    assert "autotune.report._rel -> autotune.measure._bootstrap" in found
    assert "autotune.campaign.run._rel -> autotune.campaign.study._study" in found  # a sub-package is a package
    assert "autotune.campaign._face -> autotune.campaign.file._config" in found
    assert not [f for f in found if f.startswith(("autotune.launch._own", "autotune.campaign.run._own"))]
    assert len(found) == 7


def layered(root: Path) -> set[str]:
    """The modules and packages the layer contract of ``root``'s pyproject.toml names."""
    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    layers = next(c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers")["layers"]
    return {name.strip() for layer in layers for name in layer.replace(":", "|").split("|")}


def unlayered(root: Path) -> list[str]:
    """Modules and packages directly under ``autotune/`` that the layer contract leaves out."""
    package = root / "autotune"
    found = {f"autotune.{p.stem}" for p in package.glob("*.py") if p.stem not in ("__init__", "__main__")}
    found |= {f"autotune.{p.parent.name}" for p in package.glob("*/__init__.py")}
    return sorted(found - layered(root))


def test_every_root_module_is_in_the_layer_contract(tmp_path: Path) -> None:
    assert unlayered(REPO) == []
    (tmp_path / "autotune" / "newpkg").mkdir(parents=True)
    (tmp_path / "autotune" / "newpkg" / "__init__.py").write_text("")
    (tmp_path / "autotune" / "_helper.py").write_text("")
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    assert unlayered(tmp_path) == ["autotune._helper", "autotune.newpkg"]

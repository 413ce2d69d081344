"""The layer rules of docs/DESIGN.md as import-linter contracts (pyproject.toml): kept here, and a lower layer
importing a higher one breaks them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
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
    proc = _lint(tmp_path)
    assert proc.returncode != 0
    assert "autotune.space._upward -> autotune.campaign" in proc.stdout
    assert "autotune.model._mpi -> mpi4py" in proc.stdout

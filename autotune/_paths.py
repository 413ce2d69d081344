"""Where the shipped data lives: the search spaces, rules and system profiles, and the job-script templates.

In a source checkout they are the top-level ``search_spaces/`` and ``launchers/`` directories; an installed wheel
carries the same two directories as package data in ``autotune/_data/`` (setup.py maps them), found through
``importlib.resources``. Either way the data root has the layout ``<root>/search_spaces/``,
``<root>/search_spaces/systems/`` and ``<root>/launchers/*.tmpl``, as every ``AUTOTUNE_DATA_PATH`` root does.
"""

from __future__ import annotations

import os
from importlib.resources import files
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]  # a source checkout only (test tooling: the local Slurm)


def _shipped_root() -> Path:
    installed = files("autotune") / "_data"
    if isinstance(installed, Path) and installed.is_dir():
        return installed
    return REPO_ROOT


PACKAGE_DATA = _shipped_root()


def data_dirs(kind: str) -> list[Path]:
    """Directories searched for ``kind`` ('search_spaces', 'search_spaces/systems', 'launchers').

    ``AUTOTUNE_DATA_PATH`` (os.pathsep-separated roots) comes first, then the data shipped with the package.
    """
    roots = [Path(p) for p in os.environ.get("AUTOTUNE_DATA_PATH", "").split(os.pathsep) if p]
    roots.append(PACKAGE_DATA)
    return [r / kind for r in roots]


def find_named(kind: str, name: str, base: Path | None = None) -> Path | None:
    """Resolve ``name`` as a path (relative to ``base``) or as ``<kind>/<name>.yaml`` in the data dirs."""
    candidates: list[Path] = []
    p = Path(name)
    if p.suffix in (".yaml", ".yml") or os.sep in name:
        candidates += [base / p] if base is not None and not p.is_absolute() else []
        candidates.append(p)
    else:
        candidates += [d / f"{name}.yaml" for d in data_dirs(kind)]
    for c in candidates:
        if c.is_file():
            return c
    return None


def available(kind: str) -> list[str]:
    names: set[str] = set()
    for d in data_dirs(kind):
        if d.is_dir():
            names.update(f.stem for f in d.glob("*.yaml"))
    return sorted(names)

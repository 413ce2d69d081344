"""The repository's top level is the designed one (docs/DESIGN.md, "Repository layout"), and no tracked file
still names a path from before it (examples/, evaluation/ at the top, autotune/data/)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TOP = {"pyproject.toml", "setup.py", "autotune", "search_spaces", "launchers", "experiments", "tests", "README.md",
       "docs", "mkdocs.yml", "Makefile", ".ci", ".gitignore"}
# Paths of the earlier layout. Other projects' folders of the same name (PyDarshan's examples/) are not ours.
STALE = re.compile(r"(?<![\w/.-])examples/|(?<![\w/.-])evaluation/(?![\w-]+\.md)|(?<![\w/.-])evaluation\.[a-z_]"
                   r"|from evaluation import|autotune[/.]data\b|/ \"examples\""
                   r"|(?<!\"experiments\" / )\"evaluation\" / \"results\"")
OTHERS = re.compile(r"PyDarshan|darshan\.__file__|\bPACKAGE /|\bpackage /")
BINARY = (".parquet", ".png", ".db", ".whl")


def _tracked() -> list[str]:
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout (a source copy without history): the tracked files are unknown")
    out = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z"], capture_output=True, text=True, check=True)
    return [f for f in out.stdout.split("\0") if f]


def test_the_top_level_is_the_designed_one() -> None:
    assert {f.split("/")[0] for f in _tracked()} == TOP


def test_shipped_data_and_tooling_are_where_the_design_puts_them() -> None:
    assert {p.name for p in (REPO / "launchers").glob("*.tmpl")} == {"slurm-job.sh.tmpl", "slurm-step.sh.tmpl"}
    assert (REPO / "launchers" / "slurm-local" / "up.sh").is_file()
    assert (REPO / "search_spaces" / "rules.yaml").is_file() and (REPO / "search_spaces" / "systems" / "local.yaml").is_file()
    assert (REPO / "experiments" / "campaigns" / "quickstart.yaml").is_file()
    assert (REPO / "experiments" / "evaluation" / "results").is_dir()
    assert not (REPO / "autotune" / "data").exists() and not (REPO / "autotune" / "_data").exists()


def test_no_tracked_file_names_a_path_of_the_earlier_layout() -> None:
    stale = []
    for name in _tracked():
        if name.endswith(BINARY) or name == "tests/test_layout.py" or not (REPO / name).is_file():
            continue
        try:
            text = (REPO / name).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        stale += [f"{name}:{n}: {line.strip()}" for n, line in enumerate(text.splitlines(), 1)
                  if STALE.search(line) and not OTHERS.search(line)]
    assert stale == []

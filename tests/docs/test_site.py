"""The manual is a MkDocs site built in strict mode (a broken link or anchor fails), the README is a short front
door into it, and neither the docs nor the code cite an issue number or a source document's file name."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config),
                           "--site-dir", str(site)], capture_output=True, text=True, timeout=300)


def nav_pages(nav: list[object]) -> list[str]:
    out: list[str] = []
    for item in nav:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        out += nav_pages(value) if isinstance(value, list) else [str(value)]
    return out


@pytest.mark.slow
def test_site_builds_in_strict_mode(tmp_path: Path) -> None:
    res = build(REPO / "mkdocs.yml", tmp_path / "site")
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "site" / "guide" / "campaign-file" / "index.html").exists()


@pytest.mark.slow
@pytest.mark.parametrize("bad", ["[a page](guide/no-such-page.md)", "[a section](guide/campaign-file.md#no-such-heading)"])
def test_a_broken_link_fails_the_build(tmp_path: Path, bad: str) -> None:
    shutil.copytree(REPO / "docs", tmp_path / "docs")
    shutil.copy(REPO / "mkdocs.yml", tmp_path / "mkdocs.yml")
    index = tmp_path / "docs" / "index.md"
    index.write_text(index.read_text() + f"\nSee {bad}.\n")
    res = build(tmp_path / "mkdocs.yml", tmp_path / "site")
    output = res.stdout + res.stderr
    assert res.returncode != 0 and "Aborted with 1 warnings in strict mode" in output, output
    assert "no-such-" in output


def test_every_page_is_in_the_nav_and_every_nav_entry_exists() -> None:
    with (REPO / "mkdocs.yml").open() as f:
        config = yaml.load(f, Loader=yaml.SafeLoader)
    listed = set(nav_pages(config["nav"]))
    pages = {p.relative_to(REPO / "docs").as_posix() for p in (REPO / "docs").rglob("*.md")}
    assert listed <= pages, sorted(listed - pages)
    assert pages <= listed, f"pages missing from mkdocs.yml's nav: {sorted(pages - listed)}"


def test_the_readme_is_a_short_front_door() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    for command in ("make demo", "make test"):
        assert command in text
    assert "make test" in (REPO / ".ci" / "run").read_text()
    targets = [t.split("#")[0] for t in LINK.findall(text) if "://" not in t]
    assert targets, "the README links into the manual"
    for target in targets:
        assert (REPO / target).exists(), f"README.md links to a missing file: {target}"


INTERNAL = re.compile(r"\bissues? #?[0-9]+|\bissue#[0-9]+|\bseeds? 0[0-9]{2}\b|\bseeds?/0[0-9]", re.I)
TEXT = {".py", ".md", ".yaml", ".tmpl", ".txt", ".sh", ".in", ".cfg", ".toml"}
# Where a user reads: the package, its docs, the search spaces, the launchers, the campaigns and the evaluation
# harness users copy, and the tests. Committed result files under experiments/evaluation/results record
# commands and outputs as run, so they are not rewritten.
ROOTS = ("autotune", "docs", "search_spaces", "launchers", "experiments", "tests")


def user_read_files() -> list[Path]:
    files = [REPO / "README.md"]
    for root in ROOTS:
        files += [p for p in (REPO / root).rglob("*") if p.is_file() and p.suffix in TEXT
                  and "results" not in p.relative_to(REPO).parts and "__pycache__" not in p.parts]
    return files


def test_the_reference_scan_covers_campaigns_search_spaces_launchers_and_tests() -> None:
    scanned = {p.relative_to(REPO).as_posix() for p in user_read_files()}
    for expected in ("experiments/campaigns/quickstart.yaml", "experiments/evaluation/evalkit/scenarios.yaml",
                     "search_spaces/systems/cori.yaml", "launchers/slurm-job.sh.tmpl", "tests/docs/test_site.py"):
        assert expected in scanned, expected
    assert not any(s.startswith("experiments/evaluation/results/") for s in scanned)
    # split so that this file's own source does not match
    assert INTERNAL.search("# Issue" + " 6 / seed" + " 003 on the model") and INTERNAL.search("seeds/" + "004_x.txt")
    assert not INTERNAL.search("seed: 3") and not INTERNAL.search("the sampler's seed 42")


def test_no_issue_numbers_or_source_file_names_in_code_or_docs() -> None:
    hits = []
    for path in user_read_files():
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if INTERNAL.search(line):
                hits.append(f"{path.relative_to(REPO)}:{n}: {line.strip()}")
    assert not hits, "say the fact and cite its public source (docs/references.md):\n" + "\n".join(hits)

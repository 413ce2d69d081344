"""Where the shipped data is found: at the top of a checkout (search_spaces/, launchers/), after the
AUTOTUNE_DATA_PATH roots; an installed wheel's autotune/_data/ is covered by tests/test_install.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from autotune import _paths

REPO = Path(__file__).resolve().parents[1]


def test_a_checkout_finds_the_top_level_data() -> None:
    assert _paths.PACKAGE_DATA == REPO
    assert _paths.find_named("search_spaces", "rules") == REPO / "search_spaces" / "rules.yaml"
    assert _paths.find_named("search_spaces/systems", "theta") == REPO / "search_spaces" / "systems" / "theta.yaml"
    assert "lustre-cray" in _paths.available("search_spaces") and "local" in _paths.available("search_spaces/systems")
    assert [d for d in _paths.data_dirs("launchers") if (d / "slurm-job.sh.tmpl").is_file()] == [REPO / "launchers"]


def test_data_path_roots_come_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    for root in (first, second):
        (root / "search_spaces").mkdir(parents=True)
        (root / "search_spaces" / "lustre-cray.yaml").write_text("name: lustre-cray\n")
    (second / "search_spaces" / "mine.yaml").write_text("name: mine\n")
    monkeypatch.setenv("AUTOTUNE_DATA_PATH", f"{first}:{second}")
    assert _paths.data_dirs("launchers") == [first / "launchers", second / "launchers", REPO / "launchers"]
    assert _paths.find_named("search_spaces", "lustre-cray") == first / "search_spaces" / "lustre-cray.yaml"
    assert _paths.find_named("search_spaces", "mine") == second / "search_spaces" / "mine.yaml"
    assert _paths.find_named("search_spaces", "rules") == REPO / "search_spaces" / "rules.yaml"  # shipped still found
    assert {"mine", "lustre-cray", "rabbit"} <= set(_paths.available("search_spaces"))

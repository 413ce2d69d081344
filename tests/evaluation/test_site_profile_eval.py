"""The site-profile evaluation runs for real: detection, one probe, the held-out rows scored both ways."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from experiments.evaluation import site_profile_eval


@pytest.mark.slow
@pytest.mark.mpi
def test_it_scores_the_shipped_and_the_probed_profile(tmp_path: Path) -> None:
    out = tmp_path / "eval.txt"
    assert site_profile_eval.main(["--probes", "1", "--budget", "30", "--out", str(out)]) == 0
    text = out.read_text()
    assert re.search(r"detection: mpich \S+ .*cached [0-9.]+ ms", text)
    assert re.search(r"shipped local profile: Spearman [0-9.-]+, median error \d+% over 36 held-out rows", text)
    assert re.search(r"probe 1: [0-9.]+ s \(budget 30 s\); its profile: Spearman [0-9.-]+, median error \d+%", text)
    assert re.search(r"posix_file_bw: \S+ +\(max/min 1\.00\)", text)

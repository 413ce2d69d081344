"""The hostile-input probe's judgement of one outcome, and a few of its cases run for real."""

from __future__ import annotations

from pathlib import Path

import pytest

from experiments.evaluation import hostile_cli
from experiments.evaluation.hostile_cli_cases import Case

CASE = Case("x", lambda e: [], expect="--trials")
USAGE = "usage: autotune tune [-h]\n                     [--trials TRIALS]\n"


@pytest.mark.parametrize(("rc", "stderr", "changed", "want"), [
    (2, "autotune: error: --trials: 0 is not a positive integer\n", False, "ok"),
    (2, USAGE + "autotune tune: error: argument --trials: invalid int value: 'x'\n", False, "3 lines"),
    (2, "autotune tune: error: argument --trials: invalid int value: 'x' (`autotune tune --help` shows the usage)\n",
     False, "ok"),
    (1, "autotune: internal error: ValueError: x\n", False, "internal error"),
    (2, "Traceback (most recent call last):\n  ...\nautotune: error: --trials\n", False, "traceback"),
    (0, "", False, "exit 0"),
    (-9, "(no end within 60s)", False, "hang"),
    (2, "autotune: error: --trials: bad\nautotune: error: again\n", False, "2 lines"),
    (2, "autotune: error: storage: bad\n", False, "does not name '--trials'"),
    (2, "autotune: error: --trials: bad\n", True, "stored trials changed"),
])
def test_verdict(rc: int, stderr: str, changed: bool, want: str) -> None:
    assert hostile_cli.verdict(CASE, rc, stderr, changed) == want


@pytest.mark.slow
def test_a_few_cases_run_for_real(tmp_path: Path) -> None:
    out = tmp_path / "table.txt"
    assert hostile_cli.main(["--only", "tell --value", "--out", str(out)]) == 0
    assert not out.exists()  # --only prints the table, never overwrites the committed one

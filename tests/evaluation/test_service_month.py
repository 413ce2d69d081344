"""The service's month of production jobs runs end to end on a short month, with and without the model's check."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from experiments.evaluation import service_month


@pytest.mark.parametrize("judge", ["model+history", "history"])
def test_a_short_month_of_jobs_runs_and_reports_every_day(tmp_path: Path, judge: str) -> None:
    out = tmp_path / "month.json"
    assert service_month.main(["--apps", "theta-ior", "--days", "3", "--seeds", "0", "--judge", judge,
                               "--out", str(out)]) == 0
    [row] = json.loads(out.read_text())["rows"]
    assert row["app"] == "theta-ior" and row["days"] == 3 and len(row["speedups"]) == 3

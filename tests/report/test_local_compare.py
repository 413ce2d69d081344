"""The real local comparison (h5py kernel on local disk vs /dev/shm), `autotune status` from another
process while it runs, the HTML report in headless Chromium, the numbers against the storage and MLflow."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from autotune.testing.reports import (
    EXPERIMENTS,
    ROOT,
    autotune,
    check_against_storage,
    colored_rows,
    load_report,
    mlflow_best,
    non_white_fraction,
    screenshot,
)

PLOTS = ("overview", "history", "repetitions", "importance", "slices", "scaling")
STATUSES = 3  # snapshots from another process while the campaign runs; each `status` is a Python process


def local_campaigns(tmp_path: Path) -> list[str]:
    """The two example campaigns with the shortest confirmation (3 rounds, then the ablation's 3): it runs on
    the real kernel here, its statistics have their own tests (tests/campaign/confirm/test_confirm.py); the default
    budget of up to 80 rounds of 4 configurations made this test take minutes."""
    out = []
    for target in ("disk", "shm"):
        data = yaml.safe_load((EXPERIMENTS / f"compare-local-{target}.yaml").read_text())
        data["objective"]["confirm"] = 3
        path = tmp_path / f"compare-local-{target}.yaml"
        path.write_text(yaml.safe_dump(data, sort_keys=False))
        out.append(str(path))
    return out


@pytest.mark.slow
@pytest.mark.mpi
def test_local_compare_report_in_chromium(tmp_path: Path) -> None:
    work, rep = tmp_path / "work", tmp_path / "report"
    local = local_campaigns(tmp_path)
    cmd = [sys.executable, "-m", "autotune.cli", "compare", *local, "--report", str(rep), "--workdir", str(work),
           "--trials", "5", "--repeats", "2"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    statuses: list[subprocess.CompletedProcess[str]] = []
    while proc.poll() is None:  # `autotune status` from another process while the campaign writes (SQLite)
        if sum(s.returncode == 0 for s in statuses) < STATUSES and (work / "compare-local-disk" / "optuna.db").exists():
            st = autotune("status", local[0], "--workdir", str(work / "compare-local-disk"), timeout=120)
            statuses.append(st)
        time.sleep(1.0)
    out, err = proc.communicate()
    assert proc.returncode == 0, err[-3000:]
    ok = [s for s in statuses if s.returncode == 0]
    assert ok and all("study compare-local-disk" in s.stdout for s in ok)
    assert all(s.returncode == 0 or "not found" in s.stderr for s in statuses), [s.stderr for s in statuses]
    data = load_report(rep)
    stores = {f"compare-local-{t}": (f"sqlite:///{work / f'compare-local-{t}' / 'optuna.db'}", f"compare-local-{t}", 1)
              for t in ("disk", "shm")}
    check_against_storage(data, stores)
    for t in data["targets"]:
        uri = f"sqlite:///{work / t['campaign'] / 'mlflow.db'}"
        assert mlflow_best(uri, t["study"], "write_bandwidth_mib_s", maximize=True) == pytest.approx(t["best_value"])
    assert data["recommendation"] in out and data["recommendation"] in (rep / "report.md").read_text()
    html = (rep / "report.html").read_text()
    assert "<script" not in html and "src=\"http" not in html and "href=\"http" not in html
    for name in PLOTS:
        assert f"id='plot-{name}'" in html
    assert "Confirmation:" in html and "confirmation: 3 interleaved rounds" in html  # the confirmed result is shown
    assert "not measured side by side" in data["recommendation"]
    # The whole page: coloured plot marks in many separate bands down the page.
    png = tmp_path / "page.png"
    screenshot((rep / "report.html").as_uri(), png, tmp_path / "profile")
    rows = colored_rows(png)
    bands = [rows[i:i + 100].sum() for i in range(0, len(rows), 100)]
    assert sum(b > 150 for b in bands) >= 8, bands
    # Each plot on its own (the same SVG as inline in the page): not blank, and coloured.
    for name in PLOTS:
        shot = tmp_path / f"{name}.png"
        screenshot((rep / "figures" / f"{name}.svg").as_uri(), shot, tmp_path / "profile", size=(1000, 900))
        assert non_white_fraction(shot) > 0.005, name
        assert colored_rows(shot, 0).sum() > 100, name

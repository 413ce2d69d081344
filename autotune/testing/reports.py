"""Helpers for the report tests (tests/report/): run the CLI, recompute figures from the Optuna storage and MLflow."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import optuna
import pytest

from autotune import trialrecord
from autotune._paths import REPO_ROOT as ROOT

EXPERIMENTS = ROOT / "experiments" / "campaigns"  # a source checkout (the tests run there)


def autotune(*args: str, cwd: Path | None = None, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    """Run the real ``autotune`` command (a subprocess, as a user would)."""
    return subprocess.run([sys.executable, "-m", "autotune.cli", *args], cwd=cwd or ROOT, capture_output=True,
                          text=True, timeout=timeout, check=False)


def load_report(directory: Path) -> dict[str, Any]:
    return json.loads((directory / "report.json").read_text())


def trials_run(storage: str, study: str) -> int:
    """How many trials a study has really run (0 when it does not exist yet)."""
    try:
        s = optuna.load_study(study_name=study, storage=storage)
    except KeyError:
        return 0
    return len(trialrecord.ran_trials(s.trials))


def recompute(storage: str, study: str, nodes: int) -> dict[str, Any]:
    """The figures of a study straight from its Optuna storage (independently of autotune.report)."""
    s = optuna.load_study(study_name=study, storage=storage)
    ran = trialrecord.ran_trials(s.trials)
    done = [t for t in ran if t.state.name == "COMPLETE" and t.values]
    maximize = s.directions[0] == optuna.study.StudyDirection.MAXIMIZE
    best = (max if maximize else min)(done, key=lambda t: float(t.values[0]))
    default = next(t for t in done if trialrecord.read(t).is_default)
    wall = sum(r["wall_s"] for t in ran for r in trialrecord.read(t).run_info)
    best_value, default_value = float(best.values[0]), float(default.values[0])
    speed = best_value / default_value if maximize else default_value / best_value
    return {"best_value": best_value, "best_trial": best.number, "default_value": default_value,
            "speedup_over_default": speed, "node_hours": wall * nodes / 3600, "trials_run": len(ran),
            "best_repetitions": trialrecord.read(best).repetitions, "trials": ran, "maximize": maximize}


def mlflow_best(uri: str, study: str, metric: str, maximize: bool) -> float:
    """The best trial value as MLflow recorded it (the campaign's nested trial runs)."""
    from mlflow.tracking import MlflowClient  # lazy: optional MLflow

    client = MlflowClient(tracking_uri=uri)
    parents = [r for e in client.search_experiments() for r in client.search_runs(
        [e.experiment_id], filter_string=f"tags.`autotune.study` = '{study}'")]
    assert parents, f"no MLflow parent run for {study}"
    children = client.search_runs([parents[0].info.experiment_id],
                                  filter_string=f"tags.`mlflow.parentRunId` = '{parents[0].info.run_id}'")
    vals = [r.data.metrics[f"best_{metric}"] for r in children if f"best_{metric}" in r.data.metrics]
    return float(max(vals) if maximize else min(vals))


def check_against_storage(report: dict[str, Any], storages: dict[str, tuple[str, str, int]]) -> None:
    """Every target's figures in report.json equal those recomputed from its storage."""
    for t in report["targets"]:
        storage, study, nodes = storages[t["campaign"]]
        r = recompute(storage, study, nodes)
        for key in ("best_value", "best_trial", "default_value", "trials_run"):
            assert t[key] == pytest.approx(r[key]), (t["campaign"], key)
        assert t["speedup_over_default"] == pytest.approx(r["speedup_over_default"])
        assert t["node_hours"] == pytest.approx(r["node_hours"], rel=1e-6)
        assert t["best_repetitions"] == r["best_repetitions"]
        reps = np.array([v for v in r["best_repetitions"] if v is not None])
        assert t["best_interval"][0] <= t["best_value"] <= t["best_interval"][1] or len(reps) == 1
        assert min(reps) <= t["best_interval"][0] and t["best_interval"][1] <= max(reps)


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    assert path, "chromium is not installed: run `make setup-browser`"
    return path


def screenshot(url: str, png: Path, profile: Path, size: tuple[int, int] = (1200, 5000)) -> None:
    """A headless Chromium screenshot of ``url`` (no network, throwaway profile)."""
    cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
           f"--user-data-dir={profile}", f"--window-size={size[0]},{size[1]}", f"--screenshot={png}", url]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    assert png.exists(), proc.stderr[-2000:]


def colored_rows(png: Path, left_margin: int = 60) -> np.ndarray:
    """Per pixel row: how many saturated (plot-coloured) pixels it has, the left margin excluded."""
    from PIL import Image  # lazy: optional Pillow (report extra)

    img = np.asarray(Image.open(png).convert("RGB")).astype(int)[:, left_margin:, :]
    sat = img.max(axis=2) - img.min(axis=2)
    return (sat > 80).sum(axis=1)


def non_white_fraction(png: Path) -> float:
    from PIL import Image  # lazy: optional Pillow (report extra)

    img = np.asarray(Image.open(png).convert("L"))
    return float((img < 235).mean())

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from autotune.campaign import CampaignLoop, load_campaign
from autotune.tracking import get_tracker
from autotune.tracking._mlflow import STUDY_TAG

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_parent_run_nested_trials_and_per_repetition_history(tmp_path: Path) -> None:
    from mlflow.tracking import MlflowClient

    c = load_campaign(REPO / "experiments" / "campaigns" / "model-theta-ior.yaml")
    budget = c.budget.__class__(4, None, c.budget.run_timeout)
    c = c.with_overrides(workdir=tmp_path, budget=budget, storage_url=None)
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"

    def run(trials: int) -> Any:
        cc = c.with_overrides(budget=c.budget.__class__(trials, None, c.budget.run_timeout))
        tracker = get_tracker("mlflow", {"uri": uri, "experiment": "t", "artifacts": str(tmp_path / "art")})
        return CampaignLoop(cc, tracker=tracker, progress=False, out=open(os.devnull, "w")).run()

    run(3)
    res = run(5)  # resumed: same parent run, two more nested runs
    client = MlflowClient(tracking_uri=uri)
    exp = client.get_experiment_by_name("t")
    runs = client.search_runs([exp.experiment_id], max_results=100)
    parents = [r for r in runs if "mlflow.parentRunId" not in r.data.tags]
    assert len(parents) == 1 and parents[0].data.tags[STUDY_TAG] == c.study
    children = [r for r in runs if r.data.tags.get("mlflow.parentRunId") == parents[0].info.run_id]
    assert sorted(int(r.data.tags["autotune.trial"]) for r in children) == [t.number for t in res.study.trials
                                                                           if t.user_attrs.get("ran")]
    child = children[0]
    hist = client.get_metric_history(child.info.run_id, c.objective.metric)
    assert [m.step for m in hist] == list(range(c.objective.repeats))
    trial = res.study.trials[int(child.data.tags["autotune.trial"])]
    assert sorted(m.value for m in hist) == sorted(trial.user_attrs["repetitions"])
    assert child.data.metrics[f"best_{c.objective.metric}"] == pytest.approx(trial.value)
    assert "lustre.stripe_count" in child.data.params
    arts = {a.path for a in client.list_artifacts(child.info.run_id)}
    assert {"command.txt", "hints.json", "runs.json"} <= arts
    assert parents[0].data.metrics["best_value"] == pytest.approx(res.summary["best_value"])

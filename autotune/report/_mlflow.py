"""The comparison as an MLflow run: the report files and the figures as artifacts, the numbers as metrics."""

from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path
from typing import Any

from autotune._extras import require

EXPERIMENT = "autotune-compare"
KEY_TAG = "autotune.compare.key"


def compare_key(data: dict[str, Any]) -> str:
    """A stable key of the compared studies (the same comparison regenerated updates the same run)."""
    ids = sorted(f"{t['storage']}#{t['study']}" for t in data["targets"])
    return hashlib.sha1("\n".join(ids).encode()).hexdigest()[:16]


def _metric_name(label: str, what: str) -> str:
    safe = "".join(ch if ch.isalnum() or ch in "_-./ " else "_" for ch in label).replace(" ", "_")
    return f"{safe}.{what}"


def log_comparison(data: dict[str, Any], report_dir: Path, tracking_uri: str, artifact_root: Path) -> str:
    """Create or update the comparison run in ``tracking_uri``; returns its run id."""
    os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")
    require("mlflow", "tracking", "logging the comparison to MLflow")
    from mlflow.entities import Metric, RunTag  # lazy: optional MLflow
    from mlflow.tracking import MlflowClient  # lazy: optional MLflow

    logging.getLogger("mlflow").setLevel(logging.WARNING)
    logging.getLogger("alembic").setLevel(logging.WARNING)
    client = MlflowClient(tracking_uri=tracking_uri)
    exp = client.get_experiment_by_name(EXPERIMENT)
    if exp is None:
        exp_id = client.create_experiment(EXPERIMENT, artifact_location=artifact_root.resolve().as_uri())
    else:
        exp_id = exp.experiment_id
    key = compare_key(data)
    found = client.search_runs([exp_id], filter_string=f"tags.`{KEY_TAG}` = '{key}'", max_results=1)
    name = "compare: " + " vs ".join(t["label"] for t in data["targets"])
    if found:
        run_id = found[0].info.run_id
        client.update_run(run_id, status="RUNNING")
    else:
        run_id = client.create_run(exp_id, run_name=name[:250], tags={KEY_TAG: key}).info.run_id
    tags = [RunTag("autotune.compare.studies", ",".join(t["study"] for t in data["targets"])[:5000]),
            RunTag("autotune.compare.winner", str(data["winner"])),
            RunTag("autotune.compare.recommendation", data["recommendation"][:5000])]
    metrics: list[Metric] = []
    for t in data["targets"]:
        for what in ("best_value", "default_value", "speedup_over_default", "node_hours", "bb_node_hours"):
            if isinstance(t.get(what), (int, float)):
                metrics.append(Metric(_metric_name(t["label"], what), float(t[what]), 0, 0))
    if data["versus"]:
        metrics.append(Metric("margin", float(data["versus"][0]["advantage"]), 0, 0))
        metrics.append(Metric("margin_low", float(data["versus"][0]["low"]), 0, 0))
        metrics.append(Metric("margin_high", float(data["versus"][0]["high"]), 0, 0))
    client.log_batch(run_id, metrics=metrics, tags=tags)
    for name_ in ("report.html", "report.md", "report.json"):
        client.log_artifact(run_id, str(report_dir / name_))
    client.log_artifacts(run_id, str(report_dir / "figures"), "figures")
    client.set_terminated(run_id, status="FINISHED")
    return str(run_id)

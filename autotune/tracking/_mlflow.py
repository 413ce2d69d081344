"""MLflow tracker: a parent run per campaign, a nested run per trial, one metric value per repetition."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from autotune._extras import require
from autotune._registry import Option
from autotune._storelock import store_lock
from autotune.tracking._base import BaseTracker, CampaignInfo, TrackedTrial

STUDY_TAG = "autotune.study"
STORAGE_TAG = "autotune.storage"
TRIAL_TAG = "autotune.trial"
# MLflow's defaults (120 s per request, 7 retries with backoff factor 2) stall ~4 min per call on a dead
# server; these bound one call to ~2 x 4 s + ~2 s of backoff. A user's own settings win.
HTTP_LIMITS = {"MLFLOW_HTTP_REQUEST_TIMEOUT": "4", "MLFLOW_HTTP_REQUEST_MAX_RETRIES": "1",
               "MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR": "1"}


class MlflowTracker(BaseTracker):
    """Logs to MLflow through its client API (``uri`` e.g. ``sqlite:///…/mlflow.db``).

    Resuming a campaign reuses its parent run (found by the study and storage tags); a trial already
    logged (same trial number) is not logged twice.
    """

    name: ClassVar[str] = "mlflow"
    schema = (Option.text("uri", "the tracking store, e.g. sqlite:///PATH/mlflow.db"),
              Option.text("experiment", "the experiment's name"),
              Option.text("artifacts", "the artifact directory of a new experiment"))

    def __init__(self, uri: str, experiment: str, artifacts: str | None = None) -> None:
        os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")
        require("mlflow", "tracking", "tracking to MLflow (use --no-tracking or tracking: {enabled: false})")
        for key, value in HTTP_LIMITS.items():  # an unreachable server: a warning within seconds, not minutes
            os.environ.setdefault(key, value)
        from mlflow.tracking import MlflowClient

        logging.getLogger("mlflow").setLevel(logging.WARNING)
        logging.getLogger("alembic").setLevel(logging.WARNING)

        self.uri = uri
        with store_lock(uri, "mlflow-start"):  # the client creates (migrates) a SQL store at once
            self.client = MlflowClient(tracking_uri=uri)
        self.experiment_name = experiment
        self.artifacts = artifacts
        self.parent_id: str | None = None
        self.logged: set[int] = set()

    def _experiment_id(self) -> str:
        exp = self.client.get_experiment_by_name(self.experiment_name)
        if exp is not None:
            return str(exp.experiment_id)
        location = Path(self.artifacts).resolve().as_uri() if self.artifacts else None
        from mlflow.exceptions import MlflowException

        try:
            return str(self.client.create_experiment(self.experiment_name, artifact_location=location))
        except MlflowException:  # another worker (e.g. on a shared tracking server) created it meanwhile
            exp = self.client.get_experiment_by_name(self.experiment_name)
            if exp is None:
                raise
            return str(exp.experiment_id)

    def start(self, info: CampaignInfo) -> None:
        """Find or create the campaign's parent run; the store's first set-up is one process at a time."""
        with store_lock(self.uri, "mlflow-start"):  # schema creation + parent run: workers starting at once
            self._start(info)

    def _start(self, info: CampaignInfo) -> None:
        exp_id = self._experiment_id()
        found = self.client.search_runs(
            [exp_id], filter_string=f"tags.`{STUDY_TAG}` = '{info.study}' and tags.`mlflow.runName` = '{info.study}'",
            max_results=50)
        mine = [r for r in found if r.data.tags.get(STORAGE_TAG) == info.storage
                and "mlflow.parentRunId" not in r.data.tags]
        if mine:
            self.parent_id = mine[0].info.run_id
            if mine[0].info.status != "RUNNING":
                self.client.update_run(self.parent_id, status="RUNNING")
            children = self.client.search_runs([exp_id], filter_string=f"tags.`mlflow.parentRunId` = '{self.parent_id}'",
                                               max_results=50000)
            self.logged = {int(r.data.tags[TRIAL_TAG]) for r in children if TRIAL_TAG in r.data.tags}
            return
        tags = {STUDY_TAG: info.study, STORAGE_TAG: info.storage, "autotune.app": info.app,
                "autotune.system": info.system, "autotune.filesystem": info.filesystem,
                "autotune.launcher": info.launcher, "autotune.space": info.space, "autotune.objective": info.objective}
        run = self.client.create_run(exp_id, run_name=info.study, tags=tags)
        self.parent_id = run.info.run_id
        if info.campaign_text:
            self.client.log_text(self.parent_id, info.campaign_text, "campaign.yaml")
        if info.command_line:
            self.client.log_text(self.parent_id, info.command_line + "\n", "command_line.txt")

    def log_trial(self, record: TrackedTrial) -> None:
        from mlflow.entities import Metric, Param

        if self.parent_id is None or record.number in self.logged:
            return
        exp_id = self.client.get_run(self.parent_id).info.experiment_id
        tags = {"mlflow.parentRunId": self.parent_id, TRIAL_TAG: str(record.number), "autotune.state": record.state,
                "autotune.default": str(record.is_default).lower()}
        if record.error:
            tags["autotune.error"] = record.error[:500]
        if record.hints_not_in_effect:
            tags["autotune.hints_not_in_effect"] = ",".join(sorted(record.hints_not_in_effect))[:500]
        run = self.client.create_run(exp_id, run_name=f"trial-{record.number}", tags=tags)
        rid = run.info.run_id
        now = int(time.time() * 1000)
        metrics = [Metric(record.metric, float(v), now, i) for i, v in enumerate(record.repetitions) if v is not None]
        if record.value is not None:
            metrics.append(Metric(f"best_{record.metric}", float(record.value), now, 0))
        metrics += [Metric(k, float(v), now, 0) for k, v in sorted(record.extra_metrics.items())]  # objective.cost
        params = [Param(k, str(v)) for k, v in sorted(record.config.items())]
        self.client.log_batch(rid, metrics=metrics, params=params)
        for name, text in record.artifacts.items():
            self.client.log_text(rid, text, name)
        self.client.set_terminated(rid, status="FINISHED" if record.state == "COMPLETE" else "FAILED")
        self.logged.add(record.number)

    def finish(self, summary: Mapping[str, Any]) -> None:
        from mlflow.entities import Metric, RunTag

        if self.parent_id is None:
            return
        now = int(time.time() * 1000)
        metrics = [Metric(k, float(v), now, 0) for k, v in summary.items()
                   if isinstance(v, (int, float)) and not isinstance(v, bool)]
        self.client.log_batch(self.parent_id, metrics=metrics)
        best = summary.get("best_config")
        if isinstance(best, Mapping):  # tags, not params: a resumed campaign may find a better one
            tags = [RunTag(f"best.{k}", str(v)) for k, v in sorted(best.items())]
            self.client.log_batch(self.parent_id, tags=tags)
        front = summary.get("pareto_front")
        if isinstance(front, list):  # objective.cost: the trade-off, not only the recommended trial
            import json

            self.client.log_text(self.parent_id, json.dumps(front, indent=2, default=str) + "\n", "pareto_front.json")
        hints = summary.get("hints_text")
        if isinstance(hints, str):
            self.client.log_text(self.parent_id, hints, "best_hints.txt")
        self.client.set_terminated(self.parent_id, status="FINISHED")

    def abort(self, reason: str) -> None:
        """Close the parent run as FAILED with the reason (a resumed campaign sets it RUNNING again)."""
        if self.parent_id is None:
            return
        self.client.set_tag(self.parent_id, "autotune.stopped", reason[:500])
        self.client.set_terminated(self.parent_id, status="FAILED")

"""Several workers on one campaign through PostgreSQL (127.0.0.1:5432, trust auth), each test on a database
of its own made fresh for it, so a machine where the schema already exists cannot hide a start-up race."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import optuna
import pytest
from optuna.trial import TrialState

from autotune.testing import fresh_postgres_database

SERVER = os.environ.get("AUTOTUNE_TEST_POSTGRES_SERVER", "postgresql://postgres@127.0.0.1:5432")
EXAMPLES = Path(__file__).resolve().parents[3] / "experiments" / "campaigns"


@pytest.fixture
def fresh_db() -> Iterator[str]:
    with fresh_postgres_database(SERVER, f"autotune_test_{uuid.uuid4().hex[:12]}") as url:
        yield url


def start_together(cmds: list[list[str]], env: dict[str, str] | None = None) -> list[tuple[int, str]]:
    """Start every command at once; (exit code, stderr) of each."""
    procs = [subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) for c in cmds]
    out = []
    for p in procs:
        _, err = p.communicate(timeout=400)
        out.append((p.returncode, err))
    return out


@pytest.mark.slow
def test_two_workers_share_one_campaign_and_stop_at_the_total(make_campaign: Any, tmp_path: Path, fresh_db: str) -> None:
    study = f"pg-{uuid.uuid4().hex[:10]}"
    path = make_campaign(objective={"repeats": 1}, budget={"trials": 8})
    cmd = [sys.executable, "-m", "autotune.cli", "tune", str(path), "--storage", fresh_db, "--study", study]
    env = {**os.environ, "FAKE_SLEEP": "1.5"}  # slow enough that both workers get trials on a loaded machine
    for rc, err in start_together([[*cmd, "--workdir", str(tmp_path / f"w{i}")] for i in range(2)], env):
        assert rc == 0, err
    s = optuna.load_study(study_name=study, storage=fresh_db)
    ran = [t for t in s.trials if t.user_attrs.get("ran")]
    assert 8 <= len(ran) <= 9  # the total, give or take one proposal asked by both at the same instant
    assert not [t for t in s.trials if t.state == TrialState.RUNNING]
    assert sum(bool(t.user_attrs.get("is_default")) for t in ran) == 1
    assert len({t.user_attrs["worker"] for t in ran}) == 2  # both workers ran trials


def _mlflow_parents(uri: str) -> list[Any]:
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=uri)
    runs = [r for e in client.search_experiments() for r in client.search_runs([e.experiment_id])]
    return [r for r in runs if "mlflow.parentRunId" not in r.data.tags]


@pytest.mark.slow
@pytest.mark.parametrize("store", ["postgresql", "sqlite"])
def test_three_workers_start_at_once_on_a_fresh_store(store: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """Every worker starts on a store nobody has set up (Optuna schema, MLflow schema, the study)."""
    fresh_db = request.getfixturevalue("fresh_db") if store == "postgresql" else ""
    workdir = tmp_path / "shared"  # fresh: the MLflow store (and for sqlite the Optuna storage) is created here
    cmd = [sys.executable, "-m", "autotune.cli", "tune", str(EXAMPLES / "model-theta-ior.yaml"), "--study", "race",
           "--trials", "6", "--workdir", str(workdir)]
    if store == "postgresql":
        cmd += ["--storage", fresh_db]
    storage = fresh_db if store == "postgresql" else f"sqlite:///{workdir / 'optuna.db'}"
    for rc, err in start_together([cmd] * 3):
        assert rc == 0, err
    s = optuna.load_study(study_name="race", storage=storage)
    assert not [t for t in s.trials if t.state == TrialState.RUNNING]
    assert sum(bool(t.user_attrs.get("is_default")) for t in s.trials) == 1  # the study was set up once
    assert len([t for t in s.trials if t.state == TrialState.COMPLETE]) >= 6
    assert len(_mlflow_parents(f"sqlite:///{workdir / 'mlflow.db'}")) == 1  # one parent run for the campaign

"""Two workers on one campaign through PostgreSQL (127.0.0.1:5432, trust auth, database `test`)."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import optuna
import pytest
from optuna.trial import TrialState

URL = os.environ.get("AUTOTUNE_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")


@pytest.mark.slow
def test_two_workers_share_one_campaign_and_stop_at_the_total(make_campaign: Any, tmp_path: Path) -> None:
    study = f"pg-{uuid.uuid4().hex[:10]}"
    path = make_campaign(objective={"repeats": 1}, budget={"trials": 8})
    cmd = [sys.executable, "-m", "autotune.cli", "tune", str(path), "--storage", URL, "--study", study]
    env = {**os.environ, "FAKE_SLEEP": "1.5"}  # slow enough that both workers get trials on a loaded machine
    workers = [subprocess.Popen([*cmd, "--workdir", str(tmp_path / f"w{i}")], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env) for i in range(2)]
    outs = [w.communicate(timeout=300) for w in workers]
    try:
        for w, (_, err) in zip(workers, outs, strict=True):
            assert w.returncode == 0, err
        s = optuna.load_study(study_name=study, storage=URL)
        ran = [t for t in s.trials if t.user_attrs.get("ran")]
        assert 8 <= len(ran) <= 9  # the total, give or take one proposal asked by both at the same instant
        assert not [t for t in s.trials if t.state == TrialState.RUNNING]
        assert sum(bool(t.user_attrs.get("is_default")) for t in ran) == 1
        assert len({t.user_attrs["worker"] for t in ran}) == 2  # both workers ran trials
    finally:
        optuna.delete_study(study_name=study, storage=URL)

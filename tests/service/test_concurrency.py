"""Production jobs start in bursts (job arrays): many ``ask``s at once on one store, then their ``tell``s.

Every ask must get its own trial, every tell must be recorded exactly once, and no trial may be left
WAITING or RUNNING, on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import contextlib
import json
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import optuna
import pytest
from optuna.trial import TrialState

from autotune.testing import cli_at_once, fresh_postgres_database

SERVER = os.environ.get("AUTOTUNE_TEST_POSTGRES_SERVER", "postgresql://postgres@127.0.0.1:5432")
LONG = ("--timeout", "600s")  # a loaded 2-core machine running 50 jobs at once: no fallback wanted here


@contextlib.contextmanager
def store(kind: str, tmp_path: Path) -> Iterator[str]:
    if kind == "sqlite":
        yield f"sqlite:///{tmp_path}/burst.db"
        return
    with fresh_postgres_database(SERVER, f"burst_{uuid.uuid4().hex[:10]}") as url:
        yield url


def burst(campaign: Path, url: str, n: int, explore: float, first_seed: int) -> None:
    """``n`` asks at once, then ``n`` tells at once; every one must get its own trial and be recorded once."""
    asks = cli_at_once([["ask", str(campaign), "--storage", url, "--format", "json", "--explore", str(explore),
                     "--seed", str(first_seed + i), *LONG] for i in range(n)])
    assert all(code == 0 for code, _, _ in asks), [e for code, _, e in asks if code]
    refs = [json.loads(o)["trial"] for _, o, _ in asks]
    lost = [e for _, o, e in asks if not json.loads(o)["trial"]]
    assert not lost, f"{len(lost)} of {n} jobs got no trial: {lost[0]}"  # a trial for every job, no fallback
    numbers = [int(r.split(":")[1]) for r in refs]
    assert len(set(numbers)) == n, sorted(numbers)  # nobody shares a trial
    tells = cli_at_once([["tell", str(campaign), "--storage", url, "--trial", ref, "--value", str(1000 + i), *LONG]
                     for i, ref in enumerate(refs)])
    assert [code for code, _, _ in tells] == [0] * n, [e for code, _, e in tells if code]
    study = optuna.load_study(study_name=refs[0].split(":")[0], storage=url)
    told = {t.number: t for t in study.get_trials(deepcopy=False) if t.user_attrs.get("told_at")}
    assert set(numbers) <= set(told)
    assert sorted(told[k].value for k in numbers) == [1000 + i for i in range(n)]  # each tell recorded once
    states = [t.state for t in study.get_trials(deepcopy=False)]
    assert TrialState.WAITING not in states and TrialState.RUNNING not in states


@pytest.mark.slow
@pytest.mark.parametrize(("kind", "n"), [("sqlite", 50), ("postgresql", 50)])  # a 20-job burst showed nothing more
def test_a_burst_of_asks_gives_every_job_its_own_trial(campaign: Path, tmp_path: Path, kind: str, n: int) -> None:
    with store(kind, tmp_path) as url:
        if kind == "postgresql":
            # the study exists before the job array starts (its campaign or a first job made it): 50 jobs
            # setting up a fresh database at once each hold a connection while they wait for the set-up
            # lock, beyond what this shared server accepts (max_connections 100); refused, a job falls back
            (_, out, _), = cli_at_once([["ask", str(campaign), "--storage", url, "--format", "json", *LONG]])
            cli_at_once([["tell", str(campaign), "--storage", url, "--trial", json.loads(out)["trial"], "--exit-status",
                      "1", *LONG]])  # a failed job: nothing measured yet
        burst(campaign, url, n, explore=0.0, first_seed=0)  # nothing measured yet: every job gets the defaults
        burst(campaign, url, n, explore=0.5, first_seed=n)  # then the best known and exploratory ones

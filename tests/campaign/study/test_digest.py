"""The bounded reads of a study answer exactly what the full listing answers, on SQLite and PostgreSQL."""

from __future__ import annotations

import os
import random
import uuid
from collections.abc import Iterator
from pathlib import Path

import optuna
import pytest
from optuna.distributions import CategoricalDistribution, IntDistribution
from optuna.trial import TrialState, create_trial

from autotune.campaign import best_trial, counts, default_trial, recent, trials_in
from autotune.campaign.study._digest import first_flagged, rdb
from autotune.testing import fresh_postgres_database

SERVER = os.environ.get("AUTOTUNE_TEST_POSTGRES_SERVER", "postgresql://postgres@127.0.0.1:5432")
DISTS = {"cb": CategoricalDistribution(["enable", "disable"]), "nodes": IntDistribution(1, 64)}


def history(seed: int, n: int = 300) -> list[optuna.trial.FrozenTrial]:
    """Trials of every kind a study holds: run or not, failed, pruned, running, flagged, with ties."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        state = rng.choice([TrialState.COMPLETE] * 6 + [TrialState.FAIL, TrialState.PRUNED, TrialState.RUNNING,
                                                         TrialState.WAITING])
        attrs: dict[str, object] = {}
        if state in (TrialState.COMPLETE, TrialState.FAIL) and rng.random() < 0.8:
            attrs["ran"] = True
            attrs["duration_s"] = round(rng.uniform(0.5, 9.0), 3)
        if rng.random() < 0.05:
            attrs["is_default"] = True
        if rng.random() < 0.03:
            attrs["baseline"] = True
        if rng.random() < 0.1:
            attrs["infeasible"] = ["rule"] if rng.random() < 0.7 else []
        value = float(rng.choice([100, 250, 250, 400])) + (rng.randrange(500) if i > 20 else 0)
        out.append(create_trial(state=state, value=value if state == TrialState.COMPLETE else None,
                                params={"cb": rng.choice(["enable", "disable"]), "nodes": rng.randint(1, 64)},
                                distributions=DISTS, user_attrs=attrs))
    return out


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path}/d.db"
        return
    with fresh_postgres_database(SERVER, f"digest_{uuid.uuid4().hex[:10]}") as u:
        yield u


@pytest.mark.slow
@pytest.mark.parametrize("direction", ["maximize", "minimize"])
def test_bounded_reads_equal_the_full_listing(url: str, direction: str) -> None:
    trials = history(seed=len(direction))
    db = optuna.create_study(storage=url, direction=direction, study_name="s")
    mem = optuna.create_study(direction=direction)
    optuna.create_study(storage=url, direction=direction, study_name="other").add_trials(history(seed=9, n=50))
    for t in trials:  # interleaved with another study's trials: ids are not numbers
        db.add_trial(t)
        mem.add_trial(t)
    assert rdb(db) is not None and rdb(mem) is None
    for a, b in ((best_trial(db), best_trial(mem)), (default_trial(db), default_trial(mem)),
                 (first_flagged(db, "baseline", ran=False), first_flagged(mem, "baseline", ran=False))):
        assert a is not None and b is not None and (a.number, a.values) == (b.number, b.values)
    fast, full = counts(db), counts(mem)
    assert (fast.states, fast.ran_complete, fast.ran_failed, fast.infeasible) == \
        (full.states, full.ran_complete, full.ran_failed, full.infeasible)
    assert fast.time_spent_s == pytest.approx(full.time_spent_s, rel=1e-12)  # summed in another order
    assert counts(db).total == len(trials)
    for states in ((TrialState.COMPLETE,), (TrialState.COMPLETE, TrialState.PRUNED)):
        assert [t.number for t in recent(db, 40, states)] == [t.number for t in recent(mem, 40, states)]
        assert [t.params for t in recent(db, 40, states)] == [t.params for t in recent(mem, 40, states)]
    running = [t.number for t in trials_in(db, (TrialState.RUNNING,))]
    assert running == [t.number for t in mem.trials if t.state == TrialState.RUNNING]


def test_an_empty_study_has_nothing_to_read(url: str) -> None:
    db = optuna.create_study(storage=url, study_name="empty")
    assert best_trial(db) is None and default_trial(db) is None and recent(db, 10) == []
    assert counts(db).total == 0 and counts(db).time_spent_s == 0.0


@pytest.mark.parametrize("direction", ["maximize", "minimize"])
def test_an_absurd_value_is_never_the_best_on_a_database(url: str, direction: str) -> None:
    """The bounded path answers as the full listing does: a flagged value (here 1e308 for a bandwidth, 1e-9 s
    for a time) is listed as not plausible and the best plausible trial is picked (even median: 4 trials)."""
    from autotune.campaign import implausible_trials

    kind, absurd = ("bandwidth", 1e308) if direction == "maximize" else ("time", 1e-9)
    db = optuna.create_study(storage=url, direction=direction, study_name="absurd")
    mem = optuna.create_study(direction=direction)
    for study in (db, mem):
        study.set_user_attr("metric_kind", kind)
        for value in (100.0, 120.0, absurd, 110.0):
            study.add_trial(create_trial(state=TrialState.COMPLETE, value=value, params={"nodes": 2},
                                         distributions={"nodes": DISTS["nodes"]}, user_attrs={"ran": True}))
    for study in (db, mem):
        best = best_trial(study)
        assert best is not None and best.value == (120.0 if direction == "maximize" else 100.0)
        assert list(implausible_trials(study)) == [2]

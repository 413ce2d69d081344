"""Opening stores: the fast path production jobs take falls back to the usual one on a store not set up."""

from __future__ import annotations

from pathlib import Path

import optuna
import pytest
from optuna.trial import TrialState

from autotune import trialrecord
from autotune._storage import enqueue_retry, make_storage
from autotune.errors import StoreUnreachable


def test_the_fast_path_sets_up_a_new_store_and_opens_a_set_up_one(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/new.db"
    first = make_storage(url, fast=True)  # no tables yet: the usual path creates them
    assert first.get_all_studies() == [] and not first.skip_compatibility_check  # type: ignore[attr-defined]
    optuna.create_study(study_name="s", storage=first).optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=2)
    again = make_storage(url, fast=True)
    assert isinstance(again, optuna.storages.RDBStorage) and again.skip_compatibility_check
    assert len(optuna.load_study(study_name="s", storage=again).trials) == 2


def test_the_fast_path_still_reports_an_unreachable_store() -> None:
    with pytest.raises(StoreUnreachable, match="cannot open"):
        make_storage("postgresql://postgres@127.0.0.1:1/x", fast=True)


def test_a_retry_runs_before_the_trials_queued_ahead_of_it() -> None:
    """The default was interrupted while the model's picks waited behind it: its retry goes first, the picks keep
    their values and roles, nothing runs twice (the originals are failed, never run)."""
    study = optuna.create_study(direction="maximize")
    dist = optuna.distributions.IntDistribution(1, 64)
    study.enqueue_trial({"x": 1}, user_attrs=trialrecord.attrs(is_default=True))
    study.enqueue_trial({"x": 8}, user_attrs=trialrecord.attrs(initial=True))
    study.enqueue_trial({"x": 16}, user_attrs=trialrecord.attrs(rule_of_thumb="stripe-per-node"))
    default = study.ask({"x": dist})
    study.tell(default, state=TrialState.FAIL)
    enqueue_retry(study, study.trials[default.number])
    enqueue_retry(study, study.trials[default.number])  # a recovery done again: no second retry
    order = []
    while study.get_trials(deepcopy=False, states=(TrialState.WAITING,)):
        t = study.ask({"x": dist})
        order.append((t.params["x"], trialrecord.read(study.trials[t.number])))
        study.tell(t, 1.0)
    assert [x for x, _ in order] == [1, 8, 16]
    assert order[0][1].retry_of == default.number and order[0][1].is_default
    assert order[1][1].initial and order[2][1].rule_of_thumb == "stripe-per-node"
    never = [t for t in study.trials if t.state == TrialState.FAIL and t.number != default.number]
    assert len(never) == 2 and all("queued again behind a retry" in str(t.user_attrs.get("error")) for t in never)

"""The incremental best-trial record answers as ``campaign.best_trial``/``default_trial`` would, and reads only
the trials since its watermark."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Literal

import optuna
import pytest
from optuna.distributions import BaseDistribution, FloatDistribution
from optuna.trial import TrialState, create_trial

from autotune.campaign import best_trial, default_trial, make_storage
from autotune.service import _bestrecord
from autotune.service._bestrecord import KEY, known, known_best

DIST: dict[str, BaseDistribution] = {"x": FloatDistribution(0.0, 1.0)}


def _study(tmp_path: Path, direction: Literal["minimize", "maximize"] = "maximize") -> optuna.Study:
    storage = make_storage(f"sqlite:///{tmp_path}/rec.db")
    return optuna.create_study(study_name="rec", storage=storage, direction=direction)


def _add(study: optuna.Study, value: float, *, default: bool = False, ran: bool = True) -> None:
    study.add_trial(create_trial(state=TrialState.COMPLETE, value=value, params={"x": random.random()},
                                 distributions=DIST, user_attrs={"ran": ran, "is_default": default}))


def _running(study: optuna.Study) -> int:
    """A trial created RUNNING (as ``ask`` creates a job's), still in flight: its number."""
    tid = study._storage.create_new_trial(study._study_id, template_trial=create_trial(
        state=TrialState.RUNNING, params={"x": 0.5}, distributions=DIST, user_attrs={"ran": True}))
    return int(study._storage.get_trial(tid).number)


def _same(study: optuna.Study) -> None:
    best, default = known(study)
    want_best, want_default = best_trial(study), default_trial(study)
    assert (best.number if best else None) == (want_best.number if want_best else None)
    assert (default.number if default else None) == (want_default.number if want_default else None)


@pytest.mark.parametrize("direction", ["maximize", "minimize"])
def test_record_agrees_with_the_full_rule_as_trials_arrive_out_of_order(
        tmp_path: Path, direction: Literal["minimize", "maximize"]) -> None:
    random.seed(1)
    study = _study(tmp_path, direction)
    study.set_user_attr("metric_kind", "bandwidth")
    assert known(study) == (None, None)
    held = _running(study)  # a job asked early and tells late: the watermark must wait for it
    for i in range(250):
        _add(study, random.lognormvariate(0.0, 0.3) * 1000.0, default=(i == 100), ran=(i % 17 != 3))
        if i in (30, 120, 249):
            _add(study, 1e7 if direction == "maximize" else 1e-4)  # implausible: never the best
        if i % 9 == 0:
            _same(study)
    assert study.user_attrs[KEY]["upto"] < study._storage.get_trial_id_from_study_id_trial_number(study._study_id, held)
    best_value = 5000.0 if direction == "maximize" else 150.0
    study.tell(held, best_value)  # finished last, and the best of all
    _same(study)
    best = known_best(study)
    assert best is not None and best.number == held


def test_between_refreshes_only_new_trials_are_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    random.seed(2)
    study = _study(tmp_path)
    for _ in range(500):
        _add(study, random.uniform(900.0, 1100.0))
    known(study)  # built from every trial
    _add(study, 1200.0)
    _add(study, 950.0)

    def full_read(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the record was rebuilt from every trial")

    for name in ("best_ran", "ran_median", "default_trial"):  # where the record reads them
        monkeypatch.setattr(_bestrecord, name, full_read)
    best = known_best(study)
    assert best is not None and best.values == [1200.0]
    assert study.user_attrs[KEY]["settled"] == 502 and study.user_attrs[KEY]["n"] == 500


def test_damaged_or_outdated_record_is_rebuilt(tmp_path: Path) -> None:
    random.seed(3)
    study = _study(tmp_path)
    for _ in range(20):
        _add(study, random.uniform(900.0, 1100.0))
    _add(study, 800.0, default=True)
    for bad in ("nonsense", {"v": 1, "basis": "x", "upto": "high"}, {**(study.user_attrs.get(KEY) or {}), "v": 99}):
        study.set_user_attr(KEY, bad)
        _same(study)
    known(study)
    study.set_user_attr("metric_kind", "time")  # what the rule reads changed: the record's basis no longer holds
    rec_before = study.user_attrs[KEY]
    _same(study)
    assert study.user_attrs[KEY]["basis"] != rec_before["basis"]

"""What ``autotune status``, ``export`` and ``space`` print, composed from a study without running anything."""

from __future__ import annotations

from pathlib import Path

import optuna
from optuna.trial import TrialState, create_trial

from autotune import trialrecord
from autotune.campaign import Runtime, export_claim, open_study, space_text, status_text
from autotune.testing import model_campaign


def _study(tmp_path: Path) -> tuple[Runtime, optuna.Study]:
    c = model_campaign(tmp_path, trials=3)
    rt = Runtime.build(c)
    study = open_study(c, rt.space, create=True)
    params, dists = rt.space.to_optuna(rt.space.default_config()), rt.space.distributions()
    study.add_trial(create_trial(state=TrialState.COMPLETE, value=100.0, params=params, distributions=dists,
                                 user_attrs=trialrecord.attrs(ran=True, is_default=True, repetitions=[99.0, None])))
    study.add_trial(create_trial(state=TrialState.FAIL, params=params, distributions=dists,
                                 user_attrs=trialrecord.attrs(infeasible=["stripes_fit"])))
    trialrecord.store_study(study, repeats=5)
    return rt, study


def test_status_counts_and_tables_the_trials(tmp_path: Path) -> None:
    rt, study = _study(tmp_path)
    c = rt.campaign
    text = status_text(rt, study, trials_table=True, all_trials=False, table_rows=1)
    assert rt.campaign.objective.repeats == 5  # what the campaign ran with, not its file's 2
    lines = text.splitlines()
    assert lines[:2] == [f"study {c.study} in {c.storage}",
                         "trials: 1 finished (1 complete, 0 failed), 0 running, 0 queued, 1 broke a rule "
                         "(not run: stripes_fit 1)"]
    assert "the last 1 of 2 trials (--all-trials lists every one):" in lines
    assert lines[-1].startswith("   1 not run: broke the rule(s) stripes_fit {")
    every = status_text(rt, study, trials_table=True, all_trials=True, table_rows=1).splitlines()
    assert not any(line.startswith("the last ") for line in every)
    assert any(line.startswith("   0 COMPLETE        100 [99 fail] {") and line.endswith(" (default)  hints: -")
               for line in every)
    assert "hints: per setting" not in status_text(rt, study, trials_table=False, all_trials=False, table_rows=1)


def test_an_unconfirmed_export_says_so(tmp_path: Path) -> None:
    _, study = _study(tmp_path)
    assert export_claim(study).startswith("unconfirmed: the search's best trial (its best of N is overstated)")


def test_space_lists_parameters_rules_and_rules_of_thumb(tmp_path: Path) -> None:
    rt, _ = _study(tmp_path)
    text = space_text(rt)
    assert "\n".join(rt.space.describe()) in text
    assert "\nrules: " in text and "\nrules of thumb" in text

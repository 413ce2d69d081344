"""Impossible metric values and catastrophic patterns: a failed repetition with a reason, never a result or a hang."""

from __future__ import annotations

import io
import math
import time
from pathlib import Path

import optuna
import pytest
from optuna.trial import TrialState

from autotune.campaign import load_campaign, run_campaign
from autotune.launch import RunResult
from autotune.measure import EXTRACT_TIMEOUT_S, get_extractor, metric_problem
from autotune.testing import GOOD_APP, script_campaign


@pytest.mark.parametrize(("metric", "value", "problem"), [
    ("bandwidth_mib_s", math.nan, "is NaN"),
    ("anything", math.inf, "is +Infinity"),
    ("score", -math.inf, "is -Infinity"),
    ("bandwidth_mib_s", -5.0, "is negative (-5)"),
    ("seconds", -0.1, "is negative"),
    ("write_time", -1.0, "is negative"),
    ("iops", -1.0, "is negative"),
])
def test_impossible_values_are_named(metric: str, value: float, problem: str) -> None:
    msg = metric_problem(metric, value)
    assert msg is not None and problem in msg and repr(metric) in msg


@pytest.mark.parametrize(("metric", "value"), [("score", -3.0), ("bandwidth_mib_s", 1e-6), ("seconds", 12.5),
                                               ("bandwidth_mib_s", None)])
def test_possible_values_pass(metric: str, value: float | None) -> None:
    assert metric_problem(metric, value) is None


@pytest.mark.slow
def test_nan_infinity_and_negative_bandwidth_are_failed_trials_never_the_best(tmp_path: Path) -> None:
    path = script_campaign(tmp_path, GOOD_APP, budget={"trials": 5},
                          app={"env": {"FAKE_BW": "1:NaN,2:-5,3:Infinity,4:-Infinity"}})
    res = run_campaign(load_campaign(path), progress=False, out=io.StringIO())
    trials = {t.number: t for t in res.study.trials}
    assert trials[0].state == TrialState.COMPLETE and trials[0].value == 100
    for n, why in ((1, "is NaN"), (2, "is negative (-5)"), (3, "is +Infinity"), (4, "is -Infinity")):
        assert trials[n].state == TrialState.FAIL, n
        assert why in trials[n].user_attrs["error"] and why in trials[n].user_attrs["repetition_errors"][0]
    assert res.study.best_trial.number == 0
    assert all(math.isfinite(t.value) for t in res.study.trials if t.state == TrialState.COMPLETE and t.value is not None)


@pytest.mark.slow
def test_a_catastrophic_pattern_is_stopped() -> None:
    ex = get_extractor("regex", {"pattern": r"(a+)+$"})
    start = time.monotonic()
    m = ex.extract(RunResult(0, stdout="a" * 200_000 + "!"), "x")
    took = time.monotonic() - start
    assert m.value is None and m.error is not None and "catastrophic backtracking" in m.error
    # the `regex` engine checks its time limit now and then: measured here ~4-8 s for a 1 s limit
    assert took < EXTRACT_TIMEOUT_S + 20, took


@pytest.mark.slow
def test_a_campaign_with_a_catastrophic_pattern_goes_on(tmp_path: Path) -> None:
    app = 'print("a" * 100000 + "!")\nprint("bandwidth 5")\n'
    path = script_campaign(tmp_path, app, budget={"trials": 2},
                          app={"metric": {"extractor": "regex", "pattern": r"(a+)+$"}})
    res = run_campaign(load_campaign(path), progress=False, out=io.StringIO())
    # the campaign returns (it may stop early: a default trial that fails is a setup error)
    assert res.study.trials and all(t.state == TrialState.FAIL for t in res.study.trials)
    assert "catastrophic backtracking" in res.study.trials[0].user_attrs["error"]


def test_deeply_nested_json_is_not_a_record_and_not_a_crash(tmp_path: Path) -> None:
    ex = get_extractor("json")
    m = ex.extract(RunResult(0, stdout="{" + '"a":[' * 100_000 + "]" * 100_000 + "}"), "bandwidth_mib_s")
    assert m.value is None and m.error is not None and m.error.startswith("no JSON record on stdout")


@pytest.mark.slow
def test_a_finished_study_keeps_no_impossible_value(tmp_path: Path) -> None:
    """Regex extraction of a negative time (a minimised metric: it would be the best)."""
    app = 'import os\nprint("time: " + ("-3" if os.environ["AUTOTUNE_TRIAL"] == "1" else "2.5"))\n'
    path = script_campaign(tmp_path, app, budget={"trials": 2},
                          objective={"metric": "seconds", "direction": "minimize"},
                          app={"metric": {"extractor": "regex", "pattern": r"time: (\S+)"}})
    c = load_campaign(path)
    run_campaign(c, progress=False, out=io.StringIO())
    s = optuna.load_study(study_name=c.study, storage=c.storage)
    assert s.best_trial.number == 0 and s.best_value == 2.5
    assert "is negative (-3)" in s.trials[1].user_attrs["error"]


def test_a_million_matches_on_one_line_are_bounded() -> None:
    ex = get_extractor("regex", {"pattern": r"(\d)", "aggregate": "max"})
    start = time.monotonic()
    m = ex.extract(RunResult(0, stdout="7" * 1_000_000), "seconds")
    assert time.monotonic() - start < EXTRACT_TIMEOUT_S + 20
    assert m.value == 7 or (m.error is not None and "too many matches" in m.error)

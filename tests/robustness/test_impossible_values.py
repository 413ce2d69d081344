"""One rule for what a run may report and what ``tell`` may record: a bandwidth of at least 1 byte/s, a time
above 1 ns, no NaN, infinity or subnormal; an honest summary when every completed trial is flagged."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from autotune.cli import main
from autotune.measure import BANDWIDTH_FLOOR, implausible_given, metric_problem, value_problem
from autotune.testing import script_campaign

LONG = ("--timeout", "300s")


@pytest.mark.parametrize("value", [-0.0, 0.0, 4.9e-324, 1e-300, BANDWIDTH_FLOOR / 2, -5.0, float("nan")])
def test_an_impossible_bandwidth_from_a_run_is_a_failed_repetition(value: float) -> None:
    assert metric_problem("bandwidth_mib_s", value) is not None
    assert metric_problem("write", value, "bandwidth") is not None  # the objective's kind, whatever the name


@pytest.mark.parametrize("value", [0.0, -0.0, 1e-9, 5e-324, 1e-300])
def test_an_impossible_time_is_refused(value: float) -> None:
    assert metric_problem("seconds", value) is not None


@pytest.mark.parametrize("kind, value", [("bandwidth", BANDWIDTH_FLOOR), ("bandwidth", 1e-6), ("time", 2e-9),
                                         ("rate", 1e-3), (None, 0.0), (None, -3.0)])
def test_possible_values_pass(kind: Any, value: float) -> None:
    assert value_problem(value, kind) is None


def test_a_stored_impossible_value_is_never_the_best() -> None:
    assert implausible_given(1e-300, "bandwidth", True, None) is not None


def _app(value: str) -> str:
    return f"print('{{\"metrics\": {{\"bandwidth_mib_s\": {value}}}}}')\n"


@pytest.mark.parametrize("printed", ["-0", "0", "4.9e-324", "1e-300"])
def test_tune_fails_a_trial_reporting_an_impossible_bandwidth(tmp_path: Path, capsys: Any, printed: str) -> None:
    path = script_campaign(tmp_path, _app(printed), budget={"trials": 1, "run_timeout": "60s"},
                          objective={"metric": "bandwidth_mib_s", "direction": "maximize", "repeats": 1, "confirm": 0})
    assert main(["tune", str(path)]) == 1
    out = capsys.readouterr().out
    assert "FAILED: metric 'bandwidth_mib_s' is" in out and "no trial has completed yet" in out


def test_when_every_completed_trial_is_flagged_the_summary_says_so(tmp_path: Path, capsys: Any) -> None:
    path = script_campaign(tmp_path, _app("2e15"), budget={"trials": 1, "run_timeout": "60s"},
                          objective={"metric": "bandwidth_mib_s", "direction": "maximize", "repeats": 1, "confirm": 0})
    main(["tune", str(path)])
    out = capsys.readouterr().out
    assert "not plausible, never recommended: trial 0" in out
    assert "no trial has completed yet" not in out and "no plausible trial" in out


@pytest.mark.slow
def test_tell_refuses_what_a_run_may_not_report(tmp_path: Path, capsys: Any) -> None:
    path = script_campaign(tmp_path, _app("5"))
    assert main(["ask", str(path), *LONG]) == 0
    text = capsys.readouterr().out
    ref = subprocess.run(["bash", "-c", text + '\nprintf "%s" "$AUTOTUNE_TRIAL"'], capture_output=True, text=True,
                         check=True).stdout
    for value in ("5e-324", "1e-300", "-0", "0", "5e-7"):
        assert main(["tell", str(path), "--trial", ref, f"--value={value}", *LONG]) == 2, value
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "metric value" in err, err
    assert main(["tell", str(path), "--trial", ref, "--value", "1e-6", *LONG]) == 0
    data = yaml.safe_load(path.read_text())
    assert Path(data["workdir"], "optuna.db").is_file()

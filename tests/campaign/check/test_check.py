"""`autotune check`, fail fast on the default, exit codes, and metric meaning checked at load."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from autotune.cli import main

PRINT_BW = "import sys; print('starting'); print('bandwidth: 85.43 MiB/s'); print('done')"


def _regex_campaign(make_campaign: Any, pattern: str, objective: dict[str, Any], **metric: Any) -> Path:
    path: Path = make_campaign(app={"command": [sys.executable, "-c", PRINT_BW], "mpiexec": False,
                                    "metric": {"extractor": "regex", "pattern": pattern, **metric}})
    data = yaml.safe_load(path.read_text())
    data["objective"] = {"repeats": 2, **objective}  # exactly these keys (no inherited direction)
    path.write_text(yaml.safe_dump(data))
    return path


def test_check_shows_command_environment_output_metric_and_unit(make_campaign: Any, capsys: Any) -> None:
    path = make_campaign()
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "check of fake: the default configuration once on local/disk via launcher local" in out
    assert "fake_app.py" in out and "AUTOTUNE_DATA_DIR=" in out and "ROMIO_PRINT_HINTS=1" in out
    assert "hints requested: none (the system's defaults)" in out
    assert "metric: bandwidth_mib_s = 100 MiB/s (a bandwidth, maximized; read by extractor json)" in out
    assert out.rstrip().endswith("`autotune tune` spends its budget on this")


def test_check_a_given_configuration_shows_the_hints_file(make_campaign: Any, capsys: Any) -> None:
    path = make_campaign()
    assert main(["check", str(path), "--config", "mpiio.romio_cb_write=disable", "--config", "mpiio.cb_nodes=2"]) == 0
    out = capsys.readouterr().out
    hints_file = out.split("romio-hints.txt:\n")[1].split("\nrun:")[0].splitlines()
    assert {"  cb_config_list *:2", "  cb_nodes 2", "  romio_cb_write disable"} <= set(hints_file)
    assert "bandwidth_mib_s = 625 MiB/s" in out  # the fake app: 100 x 5 x (1 + log2(2)/4)


def test_check_refuses_a_parameter_that_is_not_searched(make_campaign: Any, capsys: Any) -> None:
    assert main(["check", str(make_campaign()), "--config", "lustre.stripe_count=4"]) == 2
    assert "--config: 'lustre.stripe_count' is not searched on this target" in capsys.readouterr().err


def test_check_of_a_wrong_regex_fails_with_the_closest_output_line(make_campaign: Any, capsys: Any) -> None:
    path = _regex_campaign(make_campaign, r"bandwdth: ([0-9.]+)", {"metric": "write_bw", "direction": "maximize"})
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    assert "FAILED: pattern 'bandwdth: ([0-9.]+)' not found in stdout; closest line: 'bandwidth: 85.43 MiB/s'" in out
    assert "  | bandwidth: 85.43 MiB/s" in out


def test_a_bandwidth_captured_for_a_seconds_objective_fails_naming_both(make_campaign: Any, capsys: Any) -> None:
    path = _regex_campaign(make_campaign, r"bandwidth: ([0-9.]+)", {"metric": "seconds", "direction": "minimize"})
    assert main(["check", str(path)]) == 1
    assert "the output says MiB/s (a bandwidth) but the objective 'seconds' is a time" in capsys.readouterr().out


@pytest.mark.parametrize(("objective", "metric", "message"), [
    ({"metric": "seconds", "direction": "minimize"}, {"unit": "MB/s"},
     "objective.metric: 'seconds' names a time, but app.metric.unit 'MB/s' is a bandwidth"),
    ({"metric": "write_bw", "direction": "minimize"}, {"unit": "MB/s"},
     "objective.direction: 'minimize' on 'write_bw', a bandwidth in MB/s, tunes for the slowest configuration"),
    ({"metric": "fom"}, {}, "objective.direction: required for 'fom'"),
])
def test_a_metric_that_contradicts_its_objective_is_refused_at_load(make_campaign: Any, capsys: Any,
                                                                     objective: dict[str, Any], metric: dict[str, Any],
                                                                     message: str) -> None:
    path = _regex_campaign(make_campaign, r"bandwidth: ([0-9.]+)", objective, **metric)
    assert main(["tune", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@pytest.mark.slow
def test_tune_stops_after_a_failing_default_and_exits_non_zero(make_campaign: Any, capsys: Any) -> None:
    path = _regex_campaign(make_campaign, r"bandwdth: ([0-9.]+)", {"metric": "write_bw", "direction": "maximize"})
    assert main(["tune", str(path), "--trials", "6"]) == 1
    captured = capsys.readouterr()
    out = captured.out
    assert "the default configuration failed in every repetition (2): pattern 'bandwdth: ([0-9.]+)'" in out
    assert "closest line: 'bandwidth: 85.43 MiB/s'" in out and "  | done" in out
    assert "1 trials run (1 failed)" in out
    assert "every trial failed" in captured.err


@pytest.mark.slow
def test_failed_trials_after_a_working_default_are_a_normal_campaign(make_campaign: Any, capsys: Any,
                                                                     monkeypatch: Any) -> None:
    monkeypatch.setenv("FAKE_FAIL_TRIALS", "1,2")
    monkeypatch.setenv("FAKE_SLEEP", "0")
    assert main(["tune", str(make_campaign(budget={"trials": 3}))]) == 0
    assert "3 trials run (2 failed)" in capsys.readouterr().out


def test_status_export_and_run_directory_after_a_short_campaign(make_campaign: Any, capsys: Any,
                                                                 monkeypatch: Any) -> None:
    monkeypatch.setenv("FAKE_SLEEP", "0")
    path = make_campaign(budget={"trials": 2})
    assert main(["tune", str(path)]) == 0
    capsys.readouterr()
    assert main(["status", str(path)]) == 0
    assert "trials: 2 finished (2 complete, 0 failed), 0 running, 0 queued" in capsys.readouterr().out
    assert main(["export", str(path), "--format", "mpich"]) == 2
    err = capsys.readouterr().err
    assert "MPICH_MPIIO_HINTS is read only by Cray MPICH" in err and "use --format romio" in err
    command = (path.parent / "work" / "runs" / "fake" / "trial-0001" / "rep-0" / "command.txt").read_text()
    assert "AUTOTUNE_TRIAL=1" in command and "ROMIO_PRINT_HINTS=1" in command and "fake_app.py" in command


def test_check_asks_the_launchers_preflight_first(make_campaign: Any) -> None:
    from collections.abc import Sequence

    from autotune.campaign import Runtime, load_campaign
    from autotune.campaign.check._check import format_check, run_check
    from autotune.errors import AutotuneError
    from autotune.launch import LocalLauncher, RunRequest

    class Refusing(LocalLauncher):
        def preflight(self, requests: Sequence[RunRequest]) -> str | None:
            raise AutotuneError(f"partition 'debug' allows 2 nodes, trial {requests[0].trial} asks for 4")

    class Noting(LocalLauncher):
        def preflight(self, requests: Sequence[RunRequest]) -> str | None:
            return "sbatch --test-only: would start now"

    c = load_campaign(make_campaign())
    refused = run_check(Runtime.build(c, launcher=Refusing({})))
    assert refused.result is None and refused.error == "preflight: partition 'debug' allows 2 nodes, trial 0 asks for 4"
    noted = run_check(Runtime.build(c, launcher=Noting({})))
    assert noted.error is None and "preflight: sbatch --test-only: would start now" in format_check(
        Runtime.build(c, launcher=Noting({})), noted)

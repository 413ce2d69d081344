"""Cases found by the hostile-input probe (experiments/evaluation/hostile_cli.py): flags and values that were
ignored, named wrongly, read without end or crashed are one line naming them, exit 2, nothing stored."""

from __future__ import annotations

import json
import os
import socket
import threading
from pathlib import Path
from typing import Any

import optuna
import pytest

from autotune.testing import assert_clean, model_campaign_data, production_campaign, run_cli, write_campaign_yaml


@pytest.mark.parametrize(("argv", "fragment"), [
    (["--storage", "sqlite:"], "--storage: 'sqlite:' is not a storage URL"),
    (["--storage", ""], "--storage: '' is not a storage URL"),
    (["--study", ""], "--study: '' is not a study name"),
    (["--notify", ""], "--notify: empty command"),
    (["--notify", "no-such-program-xyz --flag"], "--notify: 'no-such-program-xyz' is not an executable program"),
])
def test_a_bad_tune_flag_is_refused_before_anything_runs(tmp_path: Path, argv: list[str], fragment: str) -> None:
    path = write_campaign_yaml(tmp_path / "c.yaml", model_campaign_data(tmp_path / "w"))
    assert_clean(run_cli("tune", str(path), *argv), expect=fragment)
    assert not (tmp_path / "w").exists()


@pytest.mark.parametrize(("key", "value", "fragment"), [
    ("storage", "sqlite:", "storage: 'sqlite:' is not a storage URL"),
    ("objective", {"metric": None}, "objective.metric: None is not a metric name"),
    ("objective", {"metric": 5}, "objective.metric: 5 is not a metric name"),
    ("objective", {"metric": " "}, "objective.metric: '' is not a metric name"),
])
@pytest.mark.parametrize("command", ["space", "tune"])
def test_a_bad_campaign_value_is_named(tmp_path: Path, key: str, value: Any, fragment: str, command: str) -> None:
    path = write_campaign_yaml(tmp_path / "c.yaml", model_campaign_data(tmp_path / "w", **{key: value}))
    assert_clean(run_cli(command, str(path)), expect=fragment)
    assert not (tmp_path / "w").exists()


@pytest.mark.parametrize("command", ["compare", "report"])
def test_a_report_path_that_is_a_file_is_refused_first(tmp_path: Path, command: str) -> None:
    (tmp_path / "taken").write_text("x")
    path = write_campaign_yaml(tmp_path / "c.yaml", model_campaign_data(tmp_path / "w"))
    o = run_cli(command, str(path), "--report", str(tmp_path / "taken"))
    assert_clean(o, expect=f"--report: '{tmp_path / 'taken'}' exists and is not a directory")
    assert not (tmp_path / "w").exists()  # no campaign ran


@pytest.mark.parametrize("files", ["", ",", ",,", "a,,b", "a, "])
def test_export_files_with_an_empty_pattern_is_refused(tmp_path: Path, files: str) -> None:
    path = write_campaign_yaml(tmp_path / "c.yaml", model_campaign_data(tmp_path / "w"))
    assert run_cli("tune", str(path)).rc == 0
    assert_clean(run_cli("export", str(path), "--format", "mpich", "--files", files), expect="has an empty pattern")
    assert run_cli("export", str(path), "--format", "mpich", "--files", "*.h5,ckpt*").rc == 0


# ---- tell: the value and the trial named as given; the asked trial stays as it was

def _asked(tmp_path: Path) -> tuple[Path, str]:
    path = production_campaign(tmp_path)
    o = run_cli("ask", str(path), "--format", "json", "--explore", "1", "--seed", "1")
    assert o.rc == 0, o.err
    return path, json.loads(o.out)["trial"]


def _state(path: Path, ref: str) -> Any:
    study, number = ref.split(":")[:2]
    db = next(path.parent.rglob("optuna.db"))
    trial = optuna.load_study(study_name=study, storage=f"sqlite:///{db}").trials[int(number)]
    return trial.state, trial.values


@pytest.mark.parametrize(("argv", "fragment"), [
    (["--value", "1e999"], "--value: '1e999' is not a finite number"),
    (["--value", "nan"], "--value: 'nan' is not a finite number"),
    (["--value=-inf"], "--value: '-inf' is not a finite number"),
    (["--value", "fast"], "--value: 'fast' is not a number"),
    (["--output", "."], "tell --output: '.' is not a file"),
])
def test_tell_refuses_a_value_it_cannot_record(tmp_path: Path, argv: list[str], fragment: str) -> None:
    path, ref = _asked(tmp_path)
    before = _state(path, ref)
    assert_clean(run_cli("tell", str(path), "--trial", ref, *argv), expect=fragment)
    assert _state(path, ref) == before


def test_a_malformed_trial_is_named_where_it_came_from(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path, _ = _asked(tmp_path)
    assert_clean(run_cli("tell", str(path), "--trial", "nonsense", "--value", "1"), expect="--trial: 'nonsense'")
    monkeypatch.setenv("AUTOTUNE_TRIAL", "nonsense")
    assert_clean(run_cli("tell", str(path), "--value", "1"), expect="AUTOTUNE_TRIAL: 'nonsense'")


def test_tell_output_is_a_file_or_a_pipe_not_a_device(tmp_path: Path) -> None:
    """A device or a file over 64 MiB is refused (``/dev/zero`` was read without end; ``/dev/null`` failed the
    trial as told); ``--output <(tail log)`` (a pipe) is still read."""
    path, ref = _asked(tmp_path)
    before = _state(path, ref)
    assert_clean(run_cli("tell", str(path), "--trial", ref, "--output", "/dev/null"),
                 expect="tell --output: '/dev/null' is not a file")
    assert _state(path, ref) == before
    big = tmp_path / "huge.log"
    with open(big, "wb") as f:
        f.truncate((64 << 20) + 1)  # sparse: one byte over the bound
    assert_clean(run_cli("tell", str(path), "--trial", ref, "--output", str(big)), expect="larger than 64 MiB")
    assert _state(path, ref) == before
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "w") as f:
            f.write('{"autotune_record": 1, "metrics": {"write_bandwidth_mib_s": 1234}}\n')

    writer = threading.Thread(target=write, daemon=True)  # never blocks the run when tell does not read
    writer.start()
    o = run_cli("tell", str(path), "--trial", ref, "--output", str(fifo))
    writer.join(10)
    assert o.rc == 0, o.err
    assert _state(path, ref) == (optuna.trial.TrialState.COMPLETE, [1234.0])


def test_model_fit_without_a_store_creates_none(tmp_path: Path) -> None:
    (tmp_path / "w").mkdir()
    path = write_campaign_yaml(tmp_path / "c.yaml", model_campaign_data(tmp_path / "w"))
    assert_clean(run_cli("model", "fit", str(path)), expect="optuna.db' not found")
    assert list((tmp_path / "w").iterdir()) == []
    assert_clean(run_cli("model", "fit", str(path), "--storage", "sqlite:"), expect="--storage: 'sqlite:'")


# ---- store serve: where it cannot listen is said before the store is opened

@pytest.mark.parametrize(("host", "fragment"), [
    ("no such host", "--host: 'no such host' is not a host name or address"),
    ("192.0.2.1", "--host/--port: cannot listen on 192.0.2.1:"),  # TEST-NET-1: never an address of this machine
])
def test_store_serve_on_an_address_it_cannot_use(tmp_path: Path, host: str, fragment: str) -> None:
    with socket.socket() as s:  # a free port (released before the command runs)
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    db = tmp_path / "s.db"
    o = run_cli("store", "serve", "--storage", f"sqlite:///{db}", "--host", host, "--port", str(port))
    assert_clean(o, expect=fragment)
    assert not db.exists()


def test_store_serve_on_a_taken_port(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        o = run_cli("store", "serve", "--storage", f"sqlite:///{tmp_path / 's.db'}", "--port", str(port))
    assert_clean(o, expect=f"--host/--port: cannot listen on 127.0.0.1:{port}")

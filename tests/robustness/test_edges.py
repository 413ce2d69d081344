"""Edges of the command line: ``hints`` never breaks a job script, values that meant something else are refused,
a command that fails on bad input leaves no file behind, and the smaller misleading answers."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import optuna
import pytest
import yaml

from autotune._paths import find_named
from autotune.campaign.study import STARTED_NAME
from autotune.testing import assert_clean, model_campaign_data, run_cli, write_campaign_yaml


def _tuned(tmp_path: Path, **over: Any) -> Path:
    path = write_campaign_yaml(tmp_path / "c.yaml", model_campaign_data(tmp_path / "w", **over))
    assert run_cli("tune", str(path)).rc == 0
    return path


# ---- hints: exit 0 and the defaults (a shell comment) whatever goes wrong

@pytest.mark.parametrize("argv", [["--format", "yaml"], ["--bogus"], ["--timeout", "soon"], ["--path=--pool=evil"],
                                  ["--workdir", "a\nb"], ["--study", "../x"]])
def test_hints_never_exits_non_zero(tmp_path: Path, argv: list[str]) -> None:
    path = _tuned(tmp_path)
    o = run_cli("hints", str(path), *argv)
    assert o.rc == 0, o.err
    assert o.out.strip().splitlines()[-1] == "# defaults: nothing to set"
    assert "keeping the defaults" in o.err and "Traceback" not in o.err


def test_hints_with_a_malformed_recommendation_keeps_the_defaults(tmp_path: Path) -> None:
    path = _tuned(tmp_path)
    study = optuna.load_study(study_name="probe", storage=f"sqlite:///{tmp_path / 'w' / 'optuna.db'}")
    study.set_user_attr("confirmation", {"recommended": ["not", "a", "mapping"], "rounds": "x"})
    o = run_cli("hints", str(path))
    assert o.rc == 0 and "Traceback" not in o.err and "internal error" not in o.err, o.err
    assert o.out.strip()


# ---- values that were accepted and meant something else

@pytest.mark.parametrize(("key", "value", "fragment"), [
    ("space", {"use": "lustre-cray", "only": ["lustre.stripe_count"], "fixed": {"mpiio.romio_cb_write": "maybe"}},
     "'maybe' is not one of automatic | enable | disable"),
    ("space", {"use": "lustre-cray", "only": ["mpiio.romio_cb_write"],
               "parameters": {"mpiio.romio_cb_write": {"type": "categorical", "choices": ["enable", "dis able"]}}},
     "not one word"),
    ("space", {"use": "lustre-cray", "only": []}, "space.only: an empty list"),
    ("baseline", 0, "baseline: 0 is not a mapping"),
    ("baseline", [], "baseline: [] is not a mapping"),
    ("app", {"command": ["ior"], "ranks": 4, "metric": {"extractor": "json", "field": ["a"]}}, "app.metric.field"),
    ("app", {"command": ["ior"], "ranks": 4, "metric": {"extractor": "json", "field": {"a": 1}}}, "app.metric.field"),
])
def test_silently_accepted_values_are_refused(tmp_path: Path, key: str, value: Any, fragment: str) -> None:
    path = write_campaign_yaml(tmp_path / "c.yaml", model_campaign_data(tmp_path / "w", **{key: value}))
    for command in ("space", "tune"):
        assert_clean(run_cli(command, str(path)), expect=fragment)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.yaml"]


def test_nonexistent_app_cwd_is_refused_for_the_local_launcher(tmp_path: Path) -> None:
    data = model_campaign_data(tmp_path / "w", launcher={"name": "local"}, system="local", target={"filesystem": "disk"},
                          space={"use": "local-romio", "only": ["mpiio.romio_cb_write"]},
                          objective={"metric": "bandwidth_mib_s", "direction": "maximize", "repeats": 1})
    data["app"] = {"command": [sys.executable, "-c", "pass"], "ranks": 1, "mpiexec": False, "cwd": "no/such/dir",
                   "metric": {"extractor": "json"}}
    o = run_cli("tune", str(write_campaign_yaml(tmp_path / "c.yaml", data)))
    assert_clean(o, expect="app.cwd")
    assert "is not a directory" in o.err and not (tmp_path / "w").exists()


@pytest.mark.parametrize(("memory", "fragment"), [("-1GB", "negative"), (0, "not a positive size")])
def test_profile_memory_must_be_positive(tmp_path: Path, memory: Any, fragment: str) -> None:
    profile = yaml.safe_load(Path(str(find_named("search_spaces/systems", "theta"))).read_text())
    profile["node"]["memory"] = memory
    (tmp_path / "site.yaml").write_text(yaml.safe_dump(profile))
    path = write_campaign_yaml(tmp_path / "c.yaml", model_campaign_data(tmp_path / "w", system=str(tmp_path / "site.yaml")))
    assert_clean(run_cli("space", str(path)), expect=fragment)


def test_empty_report_directory_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    path = write_campaign_yaml(tmp_path / "c.yaml", model_campaign_data(tmp_path / "w"))
    for command in ("compare", "report"):
        assert_clean(run_cli(command, str(path), "--report", ""), expect="--report: an empty path")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.yaml"]


# ---- no file created by a command that fails

@pytest.mark.parametrize("argv", [["status"], ["export"], ["report", "--report", "REPORT"],
                                  ["tell", "--trial", "probe:0:" + "0" * 32, "--value", "1"]])
def test_reading_a_study_that_does_not_exist_creates_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             argv: list[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path / "cache"))
    data = model_campaign_data(tmp_path / "w")
    del data["workdir"]  # the default: autotune-runs/NAME in the current directory
    path = write_campaign_yaml(tmp_path / "c.yaml", data)
    argv = [a.replace("REPORT", str(tmp_path / "report")) for a in argv]
    o = run_cli(argv[0], str(path), *argv[1:])
    assert_clean(o, expect="not found")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.yaml"]


def test_status_on_a_file_that_is_not_a_store_leaves_no_lock(tmp_path: Path) -> None:
    path = write_campaign_yaml(tmp_path / "c.yaml", model_campaign_data(tmp_path / "w"))
    o = run_cli("status", str(path), "--storage", f"sqlite:///{path}")
    assert_clean(o, expect="no study tables")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.yaml"]


def test_a_failed_tune_leaves_no_work_directory(tmp_path: Path) -> None:
    path = write_campaign_yaml(tmp_path / "c.yaml", model_campaign_data(tmp_path / "w"))
    o = run_cli("tune", str(path), "--storage", "postgresql://127.0.0.1:1/none")
    assert_clean(o)
    assert o.rc == 2 and not (tmp_path / "w").exists()
    assert not list(tmp_path.rglob(STARTED_NAME))


# ---- smaller ones

def test_lfs_path_cannot_become_an_option(tmp_path: Path) -> None:
    path = _tuned(tmp_path)
    o = run_cli("export", str(path), "--format", "lfs", "--path=--pool=evil")
    assert_clean(o)
    assert o.rc == 2 and "--pool=evil" not in o.out
    ok = run_cli("export", str(path), "--format", "lfs", "--path", "./--pool=evil")
    assert ok.rc == 0


def test_fixed_settings_are_said_where_export_prints_them(tmp_path: Path) -> None:
    path = _tuned(tmp_path, space={"use": "lustre-cray", "only": ["lustre.stripe_count"],
                                   "fixed": {"mpiio.romio_ds_write": "disable"}})
    status = run_cli("status", str(path)).out
    exported = run_cli("export", str(path), "--format", "env").out
    assert "romio_ds_write" in exported
    assert "fixed by the campaign" in status and "mpiio.romio_ds_write = disable" in status
    assert "set nothing" not in status


def test_a_json_metric_that_is_not_a_number_is_named() -> None:
    from autotune.launch import RunResult
    from autotune.measure import get_extractor

    record = json.dumps({"autotune_record": 1, "metrics": {"bandwidth_mib_s": "fast"}})
    m = get_extractor("json").extract(RunResult(0, stdout=record), "bandwidth_mib_s")
    assert m.value is None and m.error is not None and "'fast'" in m.error and "not a number" in m.error


def test_a_huge_system_name_is_not_echoed_whole(tmp_path: Path) -> None:
    path = write_campaign_yaml(tmp_path / "c.yaml", model_campaign_data(tmp_path / "w", system="x" * 50_000))
    o = run_cli("space", str(path))
    assert_clean(o)
    assert o.rc == 2 and len(o.err) < 1000


def test_a_file_tracking_uri_is_named_as_tracking(tmp_path: Path) -> None:
    path = write_campaign_yaml(tmp_path / "c.yaml", model_campaign_data(tmp_path / "w"))
    o = run_cli("tune", str(path), "--tracking-uri", "file:///nonexistent")
    assert_clean(o, expect="--tracking-uri")
    assert "storage" not in o.err.split("--tracking-uri")[0] and not (tmp_path / "w").exists()

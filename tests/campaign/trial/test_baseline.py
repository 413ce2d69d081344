"""``baseline:`` — the application's own settings, checked against the bound space and run after the default."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from autotune.campaign import parse_campaign
from autotune.campaign.trial._baseline import baseline_config
from autotune.errors import ConfigError
from autotune.launch import RunRequest, app_command
from autotune.space import BoundSpace


def campaign(**extra: Any) -> Any:
    data = {"name": "b", "app": {"command": ["./app"], "ranks": 256, "nodes": 8,
                                 "pattern": {"bytes_per_rank": "64MiB", "io_mode": "collective"}},
            "system": "theta", "target": "model", "space": "lustre-cray", **extra}
    return parse_campaign(data, Path.cwd())


def bound(c: Any) -> BoundSpace:
    return c.space.bind(c.system, c.fs, c.app.pattern)


def test_baseline_overrides_and_dependent_defaults_follow() -> None:
    c = campaign(baseline={"lustre.stripe_count": 24, "lustre.stripe_size": "4MiB"})
    cfg = baseline_config(bound(c), c.baseline)
    assert cfg is not None
    assert cfg["lustre.stripe_count"] == 24 and cfg["lustre.stripe_size"] == 4 << 20
    assert cfg["mpiio.cb_nodes"] == 24   # Cray: aggregators follow the stripe count
    assert baseline_config(bound(campaign()), campaign().baseline) is None


@pytest.mark.parametrize(("baseline", "message"), [
    ({"lustre.stripe_count": 500}, "outside the space"),
    ({"lustre.stripe_size": "3MiB"}, "outside the space"),
    ({"bb.nodes": 2}, "not searched on this target"),
    ({"lustre.stripes": 2}, "unknown parameter"),
])
def test_bad_baseline(baseline: dict[str, Any], message: str) -> None:
    c = campaign(baseline=baseline)
    with pytest.raises(ConfigError, match=message):
        baseline_config(bound(c), c.baseline)


def test_baseline_must_be_a_mapping() -> None:
    with pytest.raises(ConfigError, match="baseline"):
        campaign(baseline=[1, 2])


def test_dry_run_shows_the_baseline_second(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import yaml

    from autotune.cli import main

    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({"name": "b", "app": {"command": ["./app"], "ranks": 256, "nodes": 8,
                                                         "pattern": {"bytes_per_rank": "64MiB"}},
                                    "system": "theta", "target": "model", "space": "lustre-cray",
                                    "baseline": {"lustre.stripe_count": 24}}))
    assert main(["tune", str(path), "--dry-run", "--trials", "2", "--workdir", str(tmp_path / "w")]) == 0
    out = capsys.readouterr().out
    assert "trial 1 (the baseline: the app's own settings)" in out and "lustre.stripe_count=24" in out


def test_app_env_placeholders_are_expanded(tmp_path: Path) -> None:
    c = parse_campaign({"name": "e", "app": {"command": ["./app"], "env": {"DARSHAN_LOGFILE": "{run_dir}/app.darshan",
                                                                           "PLAIN": "x"}},
                        "space": "local-romio"}, tmp_path)
    space = bound(c)
    from autotune.hints import resolve

    settings = resolve({}, c.system, c.fs, c.app.pattern)
    req = RunRequest(campaign="e", trial=0, repetition=0, app=c.app, system=c.system, fs=c.fs, config=space.default_config(),
                     settings=settings, run_dir=tmp_path / "run", data_dir=tmp_path / "data", timeout=10)
    env = app_command(req).env
    assert env["DARSHAN_LOGFILE"] == f"{tmp_path / 'run'}/app.darshan" and env["PLAIN"] == "x"

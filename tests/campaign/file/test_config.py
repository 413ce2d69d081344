from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from autotune.campaign import load_campaign
from autotune.errors import ConfigError

REPO = Path(__file__).resolve().parents[3]


def write(tmp_path: Path, data: dict[str, Any]) -> Path:
    p = tmp_path / "c.yaml"
    p.write_text(yaml.safe_dump(data))
    return p


BASE: dict[str, Any] = {"app": {"kernel": "h5write", "ranks": 2, "args": {"size": "8MiB"}}, "space": "local-romio"}


def test_every_shipped_campaign_file_validates() -> None:
    files = [f for f in sorted((REPO / "experiments" / "campaigns").glob("*.yaml")) if "app" in yaml.safe_load(f.read_text())]
    assert len(files) >= 6
    for f in files:
        c = load_campaign(f)
        assert c.name and c.space.params


@pytest.mark.parametrize(("patch", "message"), [
    ({"colour": "blue"}, r"campaign: unknown key 'colour' \(allowed: app, baseline, budget, description, executor"),
    ({"app": {"kernel": "h5write", "ranks": 2, "rnaks": 3}}, "app: unknown key 'rnaks'"),
    ({"app": {"kernel": "ior", "ranks": 2, "args": {"block_size": "-4MiB"}}}, "app.args.block_size: '-4MiB' is negative"),
    ({"app": {"kernel": "fio", "ranks": 2}}, "app.kernel: 'fio' is not one of ior, h5write, vpic"),
    ({"app": {"command": "mpirun ./a.out; rm -rf /", "ranks": 2}}, "app.command: .* is not a non-empty list"),
    ({"app": {"kernel": "h5write", "ranks": 0}}, "app.ranks: 0 is not a positive integer"),
    ({"system": "frontier"},
     r"system: 'frontier' not found \(known: cori, dell-lustre-ee, local, perlmutter, rabbit-nnf, shaheen2, theta"),
    ({"target": {"filesystem": "lustre"}}, "target.filesystem: 'lustre' is not a file system of system 'local'"),
    ({"objective": {"direction": "up"}}, "objective.direction: 'up' is not one of maximize, minimize"),
    ({"budget": {"wall_time": "forever"}}, "budget.wall_time: 'forever' is not a duration"),
    ({"sampler": {"name": "bayes"}}, "sampler.name: 'bayes' is not one of"),
    ({"space": "nope"}, "space: 'nope' not found"),
    ({"space": {"use": "local-romio", "exclude": ["lustre.stripe_count"]}}, "'lustre.stripe_count' is not a parameter of space"),
])
def test_bad_input_is_one_line_naming_the_value(tmp_path: Path, patch: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message) as err:
        load_campaign(write(tmp_path, {**BASE, **patch}))
    assert "\n" not in str(err.value)


def test_missing_file_and_bad_yaml(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="campaign file .*nothing.yaml' not found"):
        load_campaign(tmp_path / "nothing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("app: [unclosed\n")
    with pytest.raises(ConfigError, match="line"):
        load_campaign(bad)


def test_defaults_put_storage_and_tracking_in_the_work_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    c = load_campaign(write(tmp_path, BASE))
    assert c.workdir == tmp_path / "autotune-runs" / "c"
    assert c.storage == f"sqlite:///{c.workdir}/optuna.db"
    assert c.tracking_uri == f"sqlite:///{c.workdir}/mlflow.db"
    assert c.objective.repeats == 3 and c.objective.aggregate == "median"
    assert c.app.pattern.library == "hdf5" and c.app.pattern.layout == "strided"


def test_target_model_runs_on_the_performance_model(tmp_path: Path) -> None:
    c = load_campaign(write(tmp_path, {**BASE, "system": "theta", "target": "model", "space": "lustre-cray",
                                       "app": {"kernel": "ior", "ranks": 64, "nodes": 4}}))
    assert c.launcher["name"] == "model" and c.fs.name == "projects"
    with pytest.raises(ConfigError, match="target: 'model' runs on the performance model"):
        load_campaign(write(tmp_path, {**BASE, "target": "model", "launcher": "local"}))

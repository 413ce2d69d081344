"""The model judges the user's metric: a bandwidth or a time of the user's own name gets the model's first picks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import optuna
import pytest

from autotune.campaign import Runtime
from autotune.model import judged_metric
from autotune.optimize import initial_configs, model_start
from autotune.testing import wrf_model_campaign


@pytest.mark.parametrize(("metric", "kind", "phases", "judged"), [
    ("write_bandwidth_mib_s", "bandwidth", ("write",), "write_bandwidth_mib_s"),
    ("bw", "bandwidth", ("write",), "write_bandwidth_mib_s"),
    ("read_rate", "bandwidth", ("read",), "read_bandwidth_mib_s"),
    ("elapsed", "time", ("write",), "write_seconds"),
    ("elapsed", "time", ("write", "read"), "seconds"),
    ("bw", "bandwidth", ("write", "read"), "bandwidth_mib_s"),
    ("points", "score", ("write",), None),
    ("iops", "rate", ("write",), None),
    ("thing", None, ("write",), None),
])
def test_a_metric_is_judged_by_its_kind_and_the_pattern_phases(metric: str, kind: str | None,
                                                                 phases: tuple[str, ...], judged: str | None) -> None:
    name, why = judged_metric(metric, kind, phases)
    assert name == judged
    assert (why == "") == (judged is not None) and (judged is not None or repr(metric) in why)


def _campaign(tmp_path: Path, metric: str, unit: str | None, **objective: Any) -> Any:
    app_metric: dict[str, Any] = {"extractor": "json", **({"unit": unit} if unit else {})}
    app = {"command": ["wrf"], "ranks": 1280, "nodes": 40, "metric": app_metric,
           "pattern": {"bytes_per_rank": 1134375, "transfer_size": 11343, "layout": "strided", "library": "pnetcdf"}}
    return wrf_model_campaign(tmp_path, app=app, objective={"metric": metric, **objective})


def test_a_bandwidth_of_the_users_own_name_gets_the_same_first_picks_as_the_built_in_name(tmp_path: Path) -> None:
    picks = {}
    for metric, unit in (("write_bandwidth_mib_s", None), ("bw", "MiB/s"), ("bw_gb", "GB/s")):
        c = _campaign(tmp_path, metric, unit)
        said: list[str] = []
        picks[metric] = initial_configs(c, Runtime.build(c).space, optuna.create_study(direction="maximize"),
                                        said.append)
        assert said == []
    assert picks["write_bandwidth_mib_s"] and picks["bw"] == picks["write_bandwidth_mib_s"] == picks["bw_gb"]


def test_a_metric_the_model_cannot_judge_is_said_in_one_line_with_the_reason(tmp_path: Path) -> None:
    c = _campaign(tmp_path, "points", "score", direction="maximize")
    said: list[str] = []
    picks = initial_configs(c, Runtime.build(c).space, optuna.create_study(direction="maximize"), said.append)
    assert picks == []
    assert len(said) == 1 and "model: not used" in said[0] and "'points' is a score" in said[0]


def test_a_campaign_without_the_models_prior_says_nothing(tmp_path: Path) -> None:
    c = _campaign(tmp_path, "points", "score", direction="maximize")
    c = c.with_overrides(sampler={"name": "tpe", "seed": 1})
    assert model_start(c, Runtime.build(c).space) == ([], "")


def test_check_and_the_dry_run_say_it_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import yaml

    from autotune.cli import main

    data = {"name": "score", "system": "shaheen2", "target": {"filesystem": "scratch"},
            "app": {"command": ["app"], "ranks": 64, "nodes": 4, "metric": {"extractor": "json", "unit": "score"},
                    "pattern": {"bytes_per_rank": "16MiB", "transfer_size": "1MiB", "library": "mpiio"}},
            "space": {"use": "lustre-cray", "only": ["lustre.stripe_count"]},
            "objective": {"metric": "points", "direction": "maximize", "repeats": 1},
            "budget": {"trials": 3}, "sampler": {"name": "autotune", "seed": 1}, "launcher": {"name": "model"},
            "tracking": {"enabled": False}, "workdir": str(tmp_path / "work")}
    path = tmp_path / "score.yaml"
    path.write_text(yaml.safe_dump(data))
    for argv in (["tune", "--dry-run", str(path)], ["check", str(path)]):
        main(argv)
        lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("model: not used")]
        assert len(lines) == 1 and "'points' is a score" in lines[0], argv

"""The model judges the user's metric: a bandwidth or a time of the user's own name gets the model's first picks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import optuna
import pytest

from autotune.campaign import Runtime
from autotune.model import judged_metric
from autotune.optimize import Memo, initial_configs, model_start, model_verdict
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


def test_a_memo_ranks_once_per_objective_and_anchors_and_gives_the_same_picks(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from autotune.optimize import _start

    c = _campaign(tmp_path, "bw", "MiB/s")
    space = Runtime.build(c).space
    plain = model_start(c, space, [space.default_config()])
    calls: list[int] = []
    real = _start._model_start
    monkeypatch.setattr(_start, "_model_start", lambda *a: calls.append(1) or real(*a))
    memo: Memo = {}
    for _ in range(3):
        got = model_start(c, space, [space.default_config()], memo)
        assert got == plain
        got[0][0]["lustre.stripe_count"] = -5  # a caller's edit does not reach the memo
    assert len(calls) == 1 and model_verdict(c, space, memo) == "" and len(calls) == 1
    assert model_start(c, space, [], memo)[0] and len(calls) == 2  # other anchors: ranked anew
    other = _campaign(tmp_path, "points", "score", direction="maximize")
    assert "'points' is a score" in model_verdict(other, space, memo) and len(calls) == 3


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


@pytest.mark.slow
def test_an_opaque_command_replayed_with_the_users_metric_name_gets_the_models_first_picks(tmp_path: Path) -> None:
    """A recorded sweep replayed as an opaque command whose metric is the user's own (``bw``, MiB/s): the
    model's picks run first, as with the built-in name; 160 stripes over 128 ranks is legal on Cray."""
    import io

    import yaml

    from autotune.campaign import CampaignLoop, load_campaign, ran_trials
    from autotune.model import predict
    from autotune.pattern import IOPattern
    from autotune.systems import load_system

    counts = [1, 2, 4, 8, 16, 32, 64, 128, 160]
    pattern = {"bytes_per_rank": "1GiB", "transfer_size": "1MiB", "io_mode": "independent", "library": "mpiio"}
    cori = load_system("cori")
    pat = IOPattern.from_dict({**pattern, "ranks": 128, "nodes": 128}, "app.pattern")
    rows = ["# metric: NAME", "config,value,wall_s"]
    for sc in counts:
        v = predict(pat, cori, "scratch", {"lustre.stripe_count": sc}).metric("write_bandwidth_mib_s")
        rows += [f"lustre.stripe_count={sc},{v * f:.3f},1.0" for f in (0.97, 1.0, 0.95)]
    picks = {}
    for metric in ("bw", "write_bandwidth_mib_s"):
        (tmp_path / f"{metric}.csv").write_text("\n".join([f"# metric: {metric}", *rows[1:]]) + "\n")
        data = {"name": f"replay-{metric.replace('_', '-')}", "system": "cori", "target": {"filesystem": "scratch"},
                "app": {"command": ["ior"], "ranks": 128, "nodes": 128, "pattern": pattern,
                        "metric": {"extractor": "json", "unit": "MiB/s"}},
                "space": {"use": "lustre-cray", "only": ["lustre.stripe_count"],
                          "parameters": {"lustre.stripe_count": {"type": "categorical", "choices": counts,
                                                                 "default": 1}}},
                "objective": {"metric": metric, "repeats": 1, "confirm": 0}, "budget": {"trials": 5},
                "sampler": {"name": "autotune", "seed": 1}, "launcher": {"name": "replay", "surface": f"{metric}.csv"},
                "tracking": {"enabled": False}, "workdir": str(tmp_path / f"work-{metric}")}
        path = tmp_path / f"{metric}.yaml"
        path.write_text(yaml.safe_dump(data))
        out = io.StringIO()
        res = CampaignLoop(load_campaign(path), progress=False, out=out).run()
        ran = ran_trials(res.study)
        assert len(ran) == 5 and len({t.params["lustre.stripe_count"] for t in ran}) == 5, out.getvalue()
        assert "model: not used" not in out.getvalue()
        picks[metric] = [t.params["lustre.stripe_count"] for t in ran  # the model's picks and the rules'
                         if t.user_attrs.get("initial") or t.user_attrs.get("rule_of_thumb")]
    assert picks["bw"] and picks["bw"] == picks["write_bandwidth_mib_s"] and 160 in picks["bw"]

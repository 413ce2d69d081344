"""Cost as a second objective: real two-objective campaigns on the model launcher store two
objectives per trial, their Pareto front is Optuna's, and the recommendation moves with the exchange rate;
plus the validation of ``objective.cost`` and of a profile's ``charge:``."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import optuna
import pytest
import yaml

from autotune.campaign import CampaignLoop, Runtime, open_study, summary
from autotune.campaign.file._config import parse_campaign
from autotune.campaign.file._cost import CostObjective
from autotune.campaign.study._objectives import front, recommended
from autotune.errors import ConfigError
from autotune.systems import parse_system
from autotune.testing.reports import EXPERIMENTS

BB = EXPERIMENTS / "cost-shaheen-bb-wrfchem.yaml"
BB_CHOICES = [1, 4, 16, 32, 128]  # a grid over BB node counts: the front does not hang on a sampler's luck


def _data(path: Path = BB, **over: Any) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text())
    for key, value in over.items():
        data[key] = {**data[key], **value} if isinstance(value, dict) and isinstance(data.get(key), dict) else value
    return data


def _bb_grid(tmp_path: Path, **over: Any) -> dict[str, Any]:
    """The example, with bb.nodes on a small grid (the rest fixed at settings the example's search finds good)."""
    space = {"use": "datawarp-cray", "only": ["bb.nodes"],
             "fixed": {"lustre.stripe_size": "512KiB", "mpiio.romio_cb_write": "disable"},
             "parameters": {"bb.nodes": {"type": "categorical", "choices": BB_CHOICES, "default": 1}}}
    return _data(space=space, sampler={"name": "grid", "seed": 0}, budget={"trials": 10},
                 objective={"repeats": 1}, workdir=str(tmp_path / "work"), tracking={"enabled": False}, **over)


def _campaign(data: dict[str, Any]) -> Any:
    return parse_campaign(data, EXPERIMENTS)


def _run(data: dict[str, Any]) -> tuple[Any, optuna.Study]:
    c = _campaign(data)
    result = CampaignLoop(c, out=io.StringIO(), progress=False).run()
    return c, result.study


def test_two_objectives_stored_per_trial_and_front_is_optunas(tmp_path: Path) -> None:
    c, study = _run(_bb_grid(tmp_path))
    assert [d.name for d in study.directions] == ["MINIMIZE", "MINIMIZE"]
    done = [t for t in study.trials if t.state.name == "COMPLETE" and t.user_attrs.get("ran")]
    assert sorted({int(t.params["bb.nodes"]) for t in done}) == BB_CHOICES  # the default, then the grid
    x = c.objective.cost.exchange_rate
    for t in done:
        parts = t.user_attrs["cost"]
        assert len(t.values) == 2 and t.values[0] == pytest.approx(parts["seconds"])
        assert parts["bb_nodes"] == t.params["bb.nodes"] and parts["nodes"] == 40
        assert parts["node_hours"] == pytest.approx(40 * parts["seconds"] / 3600)
        assert t.values[1] == pytest.approx(parts["node_hours"] + x * parts["bb_node_hours"])
    # at the campaign's own exchange rate the front is exactly Optuna's study.best_trials
    ours = {p.number for p in front(study, c.objective.cost)}
    assert ours == {t.number for t in study.best_trials}
    # where a BB node-hour is dear, the fastest trial (many BB nodes) is not the cheapest: a real front
    dear = front(study, CostObjective(20.0, None))
    assert len(dear) >= 2 and dear[0].parts.bb_nodes < dear[-1].parts.bb_nodes
    assert dear[-1].parts.seconds < dear[0].parts.seconds


def test_recommendation_moves_with_the_exchange_rate(tmp_path: Path) -> None:
    c, study = _run(_bb_grid(tmp_path))
    rule = c.objective.cost

    def pick(rate: float) -> int:
        t = recommended(study, CostObjective(rate, None))
        assert t is not None
        return int(t.params["bb.nodes"])

    done = [t for t in study.trials if t.values and t.user_attrs.get("ran")]

    def cheapest(rate: float) -> int:  # recomputed from the stored parts, independently of autotune
        a = min(done, key=lambda t: t.user_attrs["cost"]["node_hours"] + rate * t.user_attrs["cost"]["bb_node_hours"])
        return int(a.params["bb.nodes"])

    free, cheap, dear = pick(0.0), pick(rule.exchange_rate), pick(20.0)
    assert (free, cheap, dear) == (cheapest(0.0), cheapest(rule.exchange_rate), cheapest(20.0))
    fastest = min(done, key=lambda t: t.values[0])
    assert free == fastest.params["bb.nodes"]            # BB node-hours free: the fastest is the cheapest
    assert dear < free                                    # BB node-hours dear: fewer BB nodes
    assert dear <= cheap <= free
    # "the cheapest within X% of the fastest": a wide margin gives the cheap pick, a tight one the fastest
    assert recommended(study, CostObjective(20.0, 0.001)).number == fastest.number
    s = summary(Runtime.build(c), study)
    assert s["best_trial"] == recommended(study).number and s["pareto_front"]
    assert s["best_charge"] == pytest.approx(32 * (s["best_node_hours"] + s["best_bb_node_hours"]))  # shaheen2 rates


@pytest.mark.slow
def test_compare_report_draws_fronts_and_prices_the_speed(tmp_path: Path) -> None:
    """`autotune compare` on Lustre and BB (model), then `autotune report` at two exchange rates."""
    from autotune.testing.reports import autotune, load_report

    lustre = tmp_path / "lustre.yaml"
    lustre.write_text(yaml.safe_dump(_data(EXPERIMENTS / "cost-shaheen-lustre-wrfchem.yaml", budget={"trials": 4},
                                           objective={"repeats": 1})))
    bb = tmp_path / "bb.yaml"
    bb.write_text(yaml.safe_dump(_bb_grid(tmp_path)))
    work, rep = tmp_path / "runs", tmp_path / "rep"
    proc = autotune("compare", str(lustre), str(bb), "--report", str(rep), "--workdir", str(work), "--no-tracking")
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = load_report(rep)
    cost = data["cost"]
    assert set(cost["targets"]) == {"shaheen2/scratch", "shaheen2/bb"}
    assert all(t["front"] for t in cost["targets"].values())
    assert all(p["bb_node_hours"] == 0 for p in cost["targets"]["shaheen2/scratch"]["front"])
    assert (rep / "figures" / "pareto.svg").read_text().count("Pareto front") >= 2
    assert "node-hours per run" in data["recommendation"] and "shaheen2/scratch" in data["recommendation"]
    assert "Pareto front" in (rep / "report.md").read_text()
    picks = {}
    for rate in ("0", "50"):
        out = tmp_path / f"rep-{rate}"
        proc = autotune("report", str(lustre), str(bb), "--report", str(out), "--workdir", str(work),
                        "--no-tracking", "--exchange-rate", rate)
        assert proc.returncode == 0, proc.stderr[-3000:]
        r = load_report(out)["cost"]
        assert r["exchange_rate"] == float(rate)
        picks[rate] = (r["recommended"]["target"], r["recommended"]["bb_nodes"])
    assert picks["0"] != picks["50"], picks  # BB time free vs dear: another configuration (or target) wins
    assert picks["50"][1] <= 1  # at 50 node-hours per BB node-hour: Lustre or a single BB node


def test_resume_keeps_the_objectives_and_refuses_another_rate(tmp_path: Path) -> None:
    data = {**_bb_grid(tmp_path), "budget": {"trials": 2}}
    _, study = _run(data)
    first = {t.number: t.values for t in study.trials if t.values}
    _, study2 = _run({**data, "budget": {"trials": 3}})  # resume: one more trial, the first two kept as told
    again = {t.number: t.values for t in study2.trials if t.values}
    assert len(first) == 2 and len(again) == 3 and all(again[n] == v for n, v in first.items())
    with pytest.raises(ConfigError, match="told at 1 BB node-hour = 0.1"):
        _run({**data, "objective": {**data["objective"], "cost": {"exchange_rate": 2}}})
    single = {**data, "objective": {k: v for k, v in data["objective"].items() if k != "cost"}}
    with pytest.raises(ConfigError, match="has two objectives"):
        open_study(_campaign(single), Runtime.build(_campaign(single)).space)


def test_autotune_sampler_falls_back_to_tpe_with_a_notice(tmp_path: Path) -> None:
    data = _data(sampler={"name": "autotune", "seed": 1}, budget={"trials": 3}, objective={"repeats": 1},
                 workdir=str(tmp_path / "work"), tracking={"enabled": False})
    out = io.StringIO()
    result = CampaignLoop(_campaign(data), out=out, progress=False).run()
    assert "sampler autotune optimises one objective" in out.getvalue()
    assert isinstance(result.study.sampler, optuna.samplers.TPESampler)
    assert all(len(t.values) == 2 for t in result.study.trials if t.values)


@pytest.mark.parametrize(("cost", "message"), [
    ({"rate": 1}, "objective.cost: unknown key 'rate'"),
    ({"exchange_rate": -1}, "objective.cost.exchange_rate: -1 is not a number >= 0"),
    ({"exchange_rate": True}, "objective.cost.exchange_rate: True is not a number"),
    ({"exchange_rate": "cheap"}, "objective.cost.exchange_rate: 'cheap' is not a number"),
    ({"within": 0}, "objective.cost.within: 0 is not a fraction"),
    ({"within": "lots%"}, "objective.cost.within: 'lots%' is not a fraction"),
    ({"within": "2000%"}, "objective.cost.within: '2000%' is not a fraction"),
    ("yes", "objective.cost: 'yes' is not"),
])
def test_cost_validation(cost: Any, message: str) -> None:
    with pytest.raises(ConfigError) as exc:
        _campaign(_data(objective={"cost": cost}))
    assert message in str(exc.value) and "\n" not in str(exc.value)


@pytest.mark.parametrize(("over", "message"), [
    ({"objective": {"adaptive": True}}, "objective.adaptive: not with objective.cost"),
    ({"sampler": {"name": "cmaes"}}, "sampler.name: 'cmaes' optimises one objective"),
    ({"sampler": {"name": "ga"}}, "sampler.name: 'ga' optimises one objective"),
    ({"sampler": {"name": "tpe", "warm_start": {"storage": "sqlite:///x.db", "study": "s"}}},
     "sampler.warm_start: not with objective.cost"),
])
def test_single_objective_features_are_refused(over: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        _campaign(_data(**over))


def test_rates_default_to_the_profile() -> None:
    c = _campaign(_data(objective={"cost": True}))
    assert c.objective.cost.exchange_rate == 1.0 and c.objective.cost.unit == "core hours"  # shaheen2: 32 / 32
    within = _campaign(_data(objective={"cost": {"exchange_rate": 0.5, "within": "10%"}})).objective.cost
    assert within.within == pytest.approx(0.1) and within.exchange_rate == 0.5
    assert _campaign(_data(objective={"cost": False})).objective.cost is None


@pytest.mark.parametrize(("charge", "message"), [
    ({"node_hours": 1}, "charge: unknown key 'node_hours'"),
    ({"node_hour": 0}, "charge.node_hour: 0 is not a positive number"),
    ({"bb_node_hour": -2}, "charge.bb_node_hour: -2 is not a non-negative number"),
    ({"unit": "a\nb"}, "charge.unit"),
])
def test_charge_validation(charge: dict[str, Any], message: str) -> None:
    data = {"name": "s", "filesystems": {"fs": {"kind": "posix"}}, "charge": charge}
    with pytest.raises(ConfigError) as exc:
        parse_system(data, "test")
    assert message in str(exc.value)


def test_service_refuses_a_two_objective_campaign(tmp_path: Path, capsys: Any) -> None:
    from autotune.cli import main

    path = tmp_path / "bb.yaml"
    path.write_text(yaml.safe_dump(_bb_grid(tmp_path)))
    assert main(["ask", str(path), "--job-id", "1"]) == 2
    assert "objective.cost: the service tells one value per production job" in capsys.readouterr().err


@pytest.mark.slow
def test_mlflow_records_both_objectives_and_the_front(tmp_path: Path) -> None:
    from mlflow.tracking import MlflowClient

    from autotune.tracking import get_tracker

    c = _campaign(_bb_grid(tmp_path))
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    tracker = get_tracker("mlflow", {"uri": uri, "experiment": "cost", "artifacts": str(tmp_path / "art")})
    res = CampaignLoop(c, tracker=tracker, out=io.StringIO(), progress=False).run()
    client = MlflowClient(tracking_uri=uri)
    runs = client.search_runs([client.get_experiment_by_name("cost").experiment_id], max_results=100)
    parent = next(r for r in runs if "mlflow.parentRunId" not in r.data.tags)
    children = [r for r in runs if r.data.tags.get("mlflow.parentRunId") == parent.info.run_id]
    assert children
    for child in children:
        t = res.study.trials[int(child.data.tags["autotune.trial"])]
        assert child.data.metrics["cost"] == pytest.approx(t.values[1])
        assert child.data.metrics["best_seconds"] == pytest.approx(t.values[0])
    assert parent.data.metrics["best_cost"] == pytest.approx(res.summary["best_cost"])
    assert "pareto_front.json" in {a.path for a in client.list_artifacts(parent.info.run_id)}


def test_front_and_pick_for_a_bandwidth_metric() -> None:
    """A maximised metric: the front keeps (more bandwidth, less cost) trade-offs; `within` is on time."""
    from autotune.campaign.file._cost import CostParts, Point, pareto, recommend

    # bandwidth = 100 / seconds; 10 compute nodes; BB nodes vary
    pts = [Point(n, 100 / s, CostParts(s, 10, b)) for n, (s, b) in enumerate([(10, 1), (5, 4), (4, 16), (6, 16)])]
    front = pareto(pts, 1.0, maximize=True)
    assert [p.number for p in front] == [1, 2]  # trials 0 and 3 are slower and dearer than trial 1
    assert recommend(pts, CostObjective(1.0), maximize=True).number == 1   # 5 s x 14 = 70 node-s: cheapest
    assert recommend(pts, CostObjective(0.0), maximize=True).number == 2   # BB free: 4 s x 10 = the fastest
    # within 25% of the fastest (4 s -> 5 s allowed) at a dear rate: trial 1; within 10%: only trial 2
    assert recommend(pts, CostObjective(5.0, 0.25), maximize=True).number == 1
    assert recommend(pts, CostObjective(5.0, 0.10), maximize=True).number == 2


@pytest.mark.parametrize("name", ["nsga2", "random"])
def test_multi_objective_samplers_run_a_cost_campaign(tmp_path: Path, name: str) -> None:
    data = _data(sampler={"name": name, "seed": 2}, budget={"trials": 4}, objective={"repeats": 1},
                 workdir=str(tmp_path / "work"), tracking={"enabled": False})
    res = CampaignLoop(_campaign(data), out=io.StringIO(), progress=False).run()
    ran = [t for t in res.study.trials if t.user_attrs.get("ran")]
    assert len(ran) == 4 and all(len(t.values) == 2 and "cost" in t.user_attrs for t in ran)
    assert res.summary["best_trial"] in {p["trial"] for p in res.summary["pareto_front"]}

"""The optimizer evaluation harness: scenarios, ground truth, a record, and a tiny run on Ray."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from experiments.evaluation.evalkit.methods import rules_of_thumb
from experiments.evaluation.evalkit.report import medians, targets
from experiments.evaluation.evalkit.run import Task, rule_records, run_task
from experiments.evaluation.evalkit.scenarios import load_scenarios, truth


def test_scenarios_are_data_and_cover_the_seeds() -> None:
    scen = load_scenarios()
    names = {s.name for s in scen}
    assert len(scen) >= 8 and {"wrf-shaheen-lustre", "wrf-shaheen-bb", "theta-ior-1m", "vpic-cori-lustre",
                                "vpic-cori-bb"} <= names


def test_truth_is_an_exhaustive_optimum() -> None:
    sc = next(s for s in load_scenarios() if s.name == "vpic-cori-bb")
    tr = truth(sc)
    assert tr.regret(tr.optimum_config) == 0.0
    assert all(tr.value(c) <= tr.optimum for c in tr.space.grid())
    rules = rules_of_thumb(tr.space)
    assert "rule:one_aggregator_per_bb_node" in rules and all(tr.space.feasible(c) for c in rules.values())


def test_a_record_has_the_checked_fields() -> None:
    rec = run_task(Task("vpic-cori-bb", "autotune", 0, trials=10))
    assert {"scenario", "method", "seed", "regret", "trials_to_95", "bench_seconds_to_95"} <= set(rec)
    assert set(rec["regret"]) == {"5", "10"} and all(0 <= v <= 1 for v in rec["regret"].values())
    assert rec["trials_to_95"] is None or 1 <= rec["trials_to_95"] <= 10
    rnd = run_task(Task("vpic-cori-bb", "random", 0, trials=10))
    assert rnd["repetitions"] == 30 and rec["repetitions"] < 30
    rules = rule_records(load_scenarios()[1], [0, 1])
    assert rules and all(r["trials"] == 1 for r in rules)
    med = medians([rec, rnd, *rules], 10)
    assert ("vpic-cori-bb", "autotune") in med
    assert "vpic-cori-bb" in targets(med, ["vpic-cori-bb"], None, 10)


@pytest.mark.ray
@pytest.mark.slow
def test_tiny_harness_run_on_ray(tmp_path: Path) -> None:
    from experiments.evaluation.optimizer_eval import main

    out = tmp_path / "r.json"
    assert main(["--seeds", "1", "--trials", "6", "--only", "vpic-cori-bb", "--methods", "autotune", "random",
                 "--overhead-trials", "10", "--cpus", "2", "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    methods = {r["method"] for r in data["records"]}
    assert {"autotune", "random", "rule:one_aggregator_per_bb_node"} <= methods
    assert out.with_suffix(".md").exists() and (tmp_path / "r-regret-methods.png").exists()
    assert data["overhead"]["trials"] == 10

    # a killed run resumes: records already in OUT.partial.jsonl are kept, the others run
    kept = next(r for r in data["records"] if r["method"] == "autotune")
    out.with_suffix(".partial.jsonl").write_text(json.dumps({**kept, "kept": True}) + "\n")
    assert main(["--seeds", "1", "--trials", "6", "--only", "vpic-cori-bb", "--methods", "autotune", "random",
                 "--overhead-trials", "10", "--cpus", "2", "--out", str(out), "--resume"]) == 0
    again = json.loads(out.read_text())["records"]
    assert [r.get("kept") for r in again if r["method"] == "autotune"] == [True]
    assert any(r["method"] == "random" for r in again) and not out.with_suffix(".partial.jsonl").exists()
    out.with_suffix(".md").unlink()
    assert main(["--out", str(out), "--render"]) == 0 and out.with_suffix(".md").exists()  # tables again from the JSON


def test_a_time_metric_is_minimised_and_its_regret_is_relative_speed() -> None:
    """A scenario whose metric is a time: the truth minimises it, regret is 1 - T_opt / T, records follow."""
    sc = next(s for s in load_scenarios() if s.metric == "seconds")
    assert sc.direction == "minimize" and sc.campaign().objective.direction == "minimize"
    tr = truth(sc)
    secs = {tuple(sorted(c.items())): tr.metric_value(c) for c in tr.space.grid() if tr.metric_value(c) > 0}
    assert min(secs.values()) == pytest.approx(tr.metric_value(tr.optimum_config))  # the fastest, not the slowest
    default = tr.space.default_config()
    assert tr.regret(default) == pytest.approx(1 - tr.metric_value(tr.optimum_config) / tr.metric_value(default))
    rec = run_task(Task(sc.name, "autotune", 0, trials=6))
    assert rec["regret"]["5"] <= tr.regret(default) and rec["bw_gain_per_tuning_minute"] > 0


@pytest.mark.parametrize(("entry", "message"), [
    ({"name": "x", "system": "cori", "filesystem": "bb", "app": {"ranks": 4}, "space": {}, "metric": "iops"},
     "metric 'iops' is not one the model predicts"),
    ({"name": "x", "system": "cori", "filesystem": "bb", "app": {"ranks": 4}, "space": {}, "metric": "seconds",
      "direction": "maximize"}, "direction 'maximize' for 'seconds': expected 'minimize'"),
    ({"name": "x", "system": "cori", "filesystem": "bb", "app": {"ranks": 4}, "space": {}, "colour": 1},
     r"unknown keys \['colour'\]"),
    ({"name": "x", "system": "cori", "app": {"ranks": 4}, "space": {}}, r"missing keys \['filesystem'\]"),
])
def test_a_bad_scenario_is_named_with_what_was_expected(tmp_path: Path, entry: dict[str, object], message: str) -> None:
    f = tmp_path / "s.yaml"
    f.write_text(json.dumps({"scenarios": [entry]}))
    with pytest.raises(ValueError, match=message):
        load_scenarios(f)


def test_the_harness_reports_a_bad_scenario_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from experiments.evaluation.optimizer_eval import main

    f = tmp_path / "s.yaml"
    f.write_text(json.dumps({"scenarios": [{"name": "x", "system": "nowhere", "filesystem": "bb",
                                            "app": {"ranks": 4}, "space": {"use": "datawarp-cray"}}]}))
    assert main(["--scenarios", str(f), "--out", str(tmp_path / "r.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("optimizer_eval: error: scenario 'x':") and "nowhere" in err[0]
    f.write_text(json.dumps({"scenarios": [{"name": "y", "system": "cori", "filesystem": "bb", "metric": "read_seconds",
                                            "app": {"ranks": 64, "nodes": 2, "bytes_per_rank": "1MiB"},
                                            "space": {"use": "datawarp-cray", "only": ["bb.nodes"]}}]}))
    assert main(["--scenarios", str(f), "--out", str(tmp_path / "r.json")]) == 2
    assert "scenario 'y': the model predicts no read_seconds for any configuration" in capsys.readouterr().err
    assert main(["--only", "no-such", "--out", str(tmp_path / "r.json")]) == 2
    assert "--only: no scenario 'no-such'" in capsys.readouterr().err

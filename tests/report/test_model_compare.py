"""Comparisons on the performance model: KAUST Shaheen II training (WRF-CHEM, 1 tuned BB node vs 64 untuned OSTs) and
LBNL Cori BB abstract (VPIC-IO on DataWarp, collective vs independent), the report's numbers against the storage and
MLflow, and the wall-time budget stopping between trials and resuming."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from autotune.campaign import load_campaign
from autotune.model import predict, scenarios
from autotune.testing.reports import EXPERIMENTS, autotune, check_against_storage, load_report, mlflow_best, trials_run

WRF = [str(EXPERIMENTS / "compare-wrfchem-lustre.yaml"), str(EXPERIMENTS / "compare-wrfchem-bb.yaml")]
VPIC = [str(EXPERIMENTS / "compare-vpic-collective.yaml"), str(EXPERIMENTS / "compare-vpic-independent.yaml")]


def _storages(work: Path, files: list[str]) -> dict[str, tuple[str, str, int]]:
    out = {}
    for f in files:
        c = load_campaign(f)
        out[c.name] = (f"sqlite:///{work / c.name / 'optuna.db'}", c.study, c.app.pattern.nodes)
    return out


@pytest.mark.slow
def test_seed000_tuned_single_bb_node_beats_64_untuned_osts(tmp_path: Path) -> None:
    work, rep = tmp_path / "work", tmp_path / "report"
    proc = autotune("compare", *WRF, "--report", str(rep), "--workdir", str(work))
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = load_report(rep)
    assert data["winner"] == "shaheen2/bb" and data["significant"]
    lustre, bb = (t for t in data["targets"])
    assert lustre["fs_kind"] == "lustre" and bb["fs_kind"] == "datawarp"
    assert bb["best_config"]["bb.nodes"] == 1 and lustre["default_config"]["lustre.stripe_count"] == 64
    # The training's figure is total run time (97 s, tuned BB). The model gives I/O time; the time outside
    # I/O is the training's total less the model's I/O for its own tuned configuration.
    c = load_campaign(WRF[1])
    compute = scenarios.WRF_BEST_TOTAL - predict(c.app.pattern, c.system, "bb", {"bb.nodes": 1, **scenarios.WRF_BEST}).seconds
    lustre_total, bb_total = compute + lustre["default_value"], compute + bb["best_value"]
    margin = (lustre_total - bb_total) / lustre_total
    # The BB wins end to end, as in the training. Its margin is held to the calibration's +-25% on ratios only:
    # the earlier model (aggregate bounds, lock scaling) gives 5.1% where the training says 13.4-14.8%, a miss
    # stated in docs/model.md's terms, not a constant refitted to this row.
    assert margin > 0, f"end-to-end margin {margin:.1%} (training: 13.4-14.8%)"
    assert 1 / 1.25 <= (lustre_total / bb_total) / (1 / (1 - 0.134)) <= 1.25  # the calibration's +-25% on ratios
    tuned_vs_default = next(v for v in data["versus"] if v["a"] == "shaheen2/bb" and v["b_kind"] == "default")
    assert tuned_vs_default["low"] > 0  # larger than the jitter: the whole interval favours the BB
    assert bb["bb_node_hours"] > 0 and lustre["bb_node_hours"] == 0
    check_against_storage(data, _storages(work, WRF))
    for t in data["targets"]:
        uri = f"sqlite:///{work / t['campaign'] / 'mlflow.db'}"
        assert mlflow_best(uri, t["study"], "seconds", maximize=False) == pytest.approx(t["best_value"])
    _check_comparison_run(f"sqlite:///{work / 'compare-wrfchem-lustre' / 'mlflow.db'}", data)
    html = (rep / "report.html").read_text()
    assert html.count("<svg") >= 5 and "http://" not in html.split("<svg", 1)[0]  # no scaling plot (above)


def _check_comparison_run(uri: str, data: dict) -> None:
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=uri)
    exp = client.get_experiment_by_name("autotune-compare")
    assert exp is not None
    (run,) = client.search_runs([exp.experiment_id])
    for t in data["targets"]:
        key = re.sub(r"[^A-Za-z0-9_\-./ ]", "_", t["label"]).replace(" ", "_") + ".best_value"
        assert run.data.metrics[key] == pytest.approx(t["best_value"])
    names = {a.path for a in client.list_artifacts(run.info.run_id)}
    assert {"report.html", "report.md", "report.json", "figures"} <= names
    figs = {a.path for a in client.list_artifacts(run.info.run_id, "figures")}
    assert {f"figures/{n}.svg" for n in ("history", "repetitions", "importance", "slices")} <= figs
    assert "figures/scaling.svg" not in figs  # neither campaign searched its resource (stripe count 64, one BB node)


@pytest.mark.slow
def test_seed003_independent_beats_collective_on_datawarp(tmp_path: Path) -> None:
    work, rep = tmp_path / "work", tmp_path / "report"
    proc = autotune("compare", *VPIC, "--report", str(rep), "--workdir", str(work), "--trials", "12")
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = load_report(rep)
    coll, ind = data["targets"]
    assert data["winner"] == ind["label"] and data["significant"]
    assert ind["best_value"] > 1.5 * coll["best_value"]  # seed: 4.6x unmatched, i.e. ~2.5x matched (+86%)
    # Aggregators not matched to the BB nodes run (the system does not refuse them); the model puts 64 on 65
    # nodes far below 64 on 64, as the abstract measured.
    c = load_campaign(VPIC[0])
    matched = predict(c.app.pattern, c.system, "bb", {"bb.nodes": 64, "mpiio.cb_nodes": 64}).bandwidth_gb_s
    unmatched = predict(c.app.pattern, c.system, "bb", {"bb.nodes": 65, "mpiio.cb_nodes": 64}).bandwidth_gb_s
    indep = predict(c.app.pattern, c.system, "bb", {"bb.nodes": 65, "mpiio.romio_cb_write": "disable"}).bandwidth_gb_s
    assert matched > 1.5 * unmatched and indep > 3.5 * unmatched
    check_against_storage(data, _storages(work, VPIC))


@pytest.mark.slow
def test_budget_stops_between_trials_and_the_same_command_continues(tmp_path: Path) -> None:
    work, rep = tmp_path / "work", tmp_path / "report"
    # 300 trials each: more than any machine runs in the 3 s, so the wall time (not the trial count) stops it
    args = ["compare", *WRF, "--report", str(rep), "--workdir", str(work), "--budget", "3s", "--trials", "300",
            "--no-tracking"]
    stores = _storages(work, WRF)

    def counts() -> list[int]:
        return [trials_run(s, st) for s, st, _ in stores.values()]

    first = autotune(*args)
    assert first.returncode == 0, first.stderr[-3000:]
    assert "wall-time budget reached between trials" in first.stdout
    n1 = counts()
    assert 1 <= n1[0] < 300 and sum(n1) < 600  # the second campaign may not have started: its share was spent
    second = autotune(*args)
    assert second.returncode == 0, second.stderr[-3000:]
    n2 = counts()
    assert sum(n2) > sum(n1) and all(b >= a for a, b in zip(n1, n2, strict=True))
    assert load_report(rep)["targets"][0]["trials_run"] == n2[0]  # the report follows the storage
    regen = autotune("report", *WRF, "--report", str(tmp_path / "again"), "--workdir", str(work), "--no-tracking")
    assert regen.returncode == 0, regen.stderr[-3000:]
    assert counts() == n2  # `report` runs nothing
    assert load_report(tmp_path / "again")["targets"] == load_report(rep)["targets"]

"""The surface evaluation: real surfaces replayed, structural variants, records and their tables."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from autotune.model import predict
from experiments.evaluation import surface_eval
from experiments.evaluation.evalkit.scenarios import load_scenarios
from experiments.evaluation.evalkit.structural import VARIANTS, metrics_of, variant_prediction
from experiments.evaluation.evalkit.surface_report import markdown
from experiments.evaluation.evalkit.truths import RealSurface, StructuralTruth


@pytest.fixture
def surface(tmp_path: Path) -> RealSurface:
    """A recorded ior-strided-disk grid: collective buffering disabled is 10x, cb_nodes inert there."""
    rows = ["# metric: write_bandwidth_mib_s", "config,value,wall_s"]
    for cb, nodes, ds in itertools.product(("automatic", "enable", "disable"), (1, 2, 4), ("automatic", "disable")):
        base = 50.0 if cb == "disable" else 5.0 * nodes
        for r in range(3):
            rows.append(f"mpiio.cb_nodes={nodes};mpiio.romio_cb_write={cb};mpiio.romio_ds_write={ds},"
                        f"{base * (1 + 0.02 * r) + (1 if ds == 'disable' else 0)},1.0")
    (tmp_path / "ior-strided-disk.csv").write_text("\n".join(rows) + "\n")
    return RealSurface("ior-strided-disk", tmp_path)


def test_a_real_surface_truth_is_the_median_and_knows_its_noise_floor(surface: RealSurface) -> None:
    assert surface.optimum == pytest.approx(52.0)
    assert surface.optimum_config["mpiio.romio_cb_write"] == "disable"
    assert surface.regret(surface.space.default_config()) == pytest.approx(1 - 5.1 / 52.0)
    assert surface.noise_floor() == pytest.approx(0.0)  # the twins (cb_nodes with cb disabled) are equal here


def test_an_older_sweep_in_a_subfolder_replays_with_the_same_campaigns(surface: RealSurface, tmp_path: Path) -> None:
    (tmp_path / "loaded").mkdir()
    (tmp_path / "ior-strided-disk.csv").rename(tmp_path / "loaded" / "ior-strided-disk.csv")
    old = RealSurface("loaded/ior-strided-disk", tmp_path)
    assert old.optimum == surface.optimum
    assert old.campaign("random", 3, 5).study == surface.campaign("random", 3, 5).study  # the same draws


def test_a_pooled_method_runs_the_same_campaign_and_recommends_by_physical_configuration(surface: RealSurface) -> None:
    surface_eval._TRUTHS["ior-strided-disk"] = surface
    try:
        plain, pooled = (surface_eval.run_task(("ior-strided-disk", m, 1, 10)) for m in ("random", "random-pool"))
    finally:
        surface_eval._TRUTHS.pop("ior-strided-disk")
    assert plain["repetitions"] == pooled["repetitions"] and plain["gain"] == pooled["gain"]  # the same runs
    twins = [c for c in surface.space.grid() if c["mpiio.romio_cb_write"] == "disable"
             and c["mpiio.romio_ds_write"] == "automatic"]
    assert len({surface.physical(c) for c in twins}) == 1 and len(twins) == 3


def test_campaigns_on_it_give_records_the_report_recomputes(surface: RealSurface) -> None:
    surface_eval._TRUTHS["ior-strided-disk"] = surface
    try:
        records = [surface_eval.run_task(("ior-strided-disk", m, s, 10)) for m in ("random", "autotune", "model-first")
                   for s in range(2)]
    finally:
        surface_eval._TRUTHS.pop("ior-strided-disk")
    rnd = records[0]
    assert set(rnd["regret"]) == {"5", "10"} and len(rnd["regret_curve"]) == 10
    assert rnd["gain"]["claimed"] > 5 and rnd["confirmed_regret"]["10"] <= rnd["regret_curve"][0]
    data = {"meta": {"command": "x", "seeds": 2, "trials": 10, "seconds": 1.0}, "truths": [surface.summary()],
            "records": records}
    md = markdown(data)
    assert "| random |" in md and "target <= 5%" in md and "overstatement" in md
    curveless = [{k: v for k, v in r.items() if k != "regret_curve"} for r in records]  # --no-curves
    assert markdown({**data, "records": curveless}) == md


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_variant_changes_a_mechanism_of_the_model(variant: str) -> None:
    sc = next(s for s in load_scenarios() if s.name == "wrf-shaheen-lustre")
    tr = StructuralTruth(sc, variant)
    cfg = tr.space.default_config()
    base = predict(tr.space.pattern, tr.space.system, tr.space.fs.name, cfg)
    var = variant_prediction(variant, tr.space.pattern, tr.space.system, tr.space.fs.name, cfg)
    assert [ph.op for ph in var.phases] == [ph.op for ph in base.phases]
    assert metrics_of(var)["write_bandwidth_mib_s"] == pytest.approx(tr.value(cfg))
    assert tr.regret(tr.optimum_config) == 0.0


def test_the_model_in_the_loop_gives_way_when_the_runs_contradict_it() -> None:
    """Theta IOR 64 MiB with aggregator contention (a mechanism the model lacks): the refitted model ranks the
    runs poorly, its share drops to 0 and the search proposes every trial after the first few."""
    import io

    from autotune.campaign import ran_trials, run_campaign

    sc = next(s for s in load_scenarios() if s.name == "theta-ior-64m")
    c = sc.campaign(sampler={"name": "autotune", "seed": 0, "prior": {"top": 3, "refit": True}, "rules_of_thumb": False},
                    objective={"metric": "write_bandwidth_mib_s", "repeats": 1, "confirm": 0}, budget={"trials": 16},
                    launcher={"name": "variant", "variant": "aggregator-contention"}, study="loop-contradicted")
    study = run_campaign(c, out=io.StringIO()).study
    trials = sorted(ran_trials(study), key=lambda t: t.number)
    by = [t.user_attrs.get("proposed_by") for t in trials]
    assert by[1:4] == ["model"] * 3 and trials[-1].user_attrs["model_share"] == 0.0
    assert trials[-1].user_attrs["model_rho"] < 0.5 and "model" not in by[8:]
    rec = {"truth": "t", "kind": "structural", "seed": 0, "bench_seconds": 1.0, "regret": {"5": 0.5, "10": 0.5}}
    md = markdown({"meta": {"command": "x", "seeds": 1, "trials": 10, "seconds": 1.0}, "truths": [],
                   "records": [{**rec, "method": "refit", "trials_to_95": None, "loop": surface_eval.loop_record(study)},
                               {**rec, "method": "autotune", "trials_to_95": 7, "bench_seconds_to_95": 1.0}]})
    assert "its share was 0 (the search alone) at the end of 1 of 1 campaigns" in md
    assert "| structural | 11.0 / 11.0 | 7.0 / 7.0 | - | - | NOT met |" in md  # a miss is reported as a miss


def test_the_harness_launcher_passes_the_launcher_contract(tmp_path: Path) -> None:
    """The harness registers ``variant`` from outside the package, so the registry walk leaves it to its own
    tests: the same launcher contract, with the model launcher's example requests."""
    from autotune.launch import LAUNCHERS, get_launcher
    from autotune.testing.contracts import check_entry
    from tests.contracts.examples import EXAMPLES

    _, good, bad = EXAMPLES[("launcher", "model")][0](tmp_path)
    make = lambda: get_launcher("variant", {"variant": "aggregator-contention"})  # noqa: E731
    check_entry(LAUNCHERS, "variant", (make, good, bad), tmp_path)

"""The surface evaluation: real surfaces replayed, structural variants, records and their tables."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from autotune.model import predict
from evaluation import surface_eval as se
from evaluation.evalkit.scenarios import load_scenarios
from evaluation.evalkit.structural import VARIANTS, metrics_of, variant_prediction
from evaluation.evalkit.surface_report import markdown
from evaluation.evalkit.truths import RealSurface, StructuralTruth


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


def test_campaigns_on_it_give_records_the_report_recomputes(surface: RealSurface) -> None:
    se._TRUTHS["ior-strided-disk"] = surface
    try:
        records = [se.run_task(("ior-strided-disk", m, s, 10)) for m in ("random", "autotune", "model-first")
                   for s in range(2)]
    finally:
        se._TRUTHS.pop("ior-strided-disk")
    rnd = records[0]
    assert set(rnd["regret"]) == {"5", "10"} and len(rnd["regret_curve"]) == 10
    assert rnd["gain"]["claimed"] > 5 and rnd["confirmed_regret"]["10"] <= rnd["regret_curve"][0]
    data = {"meta": {"command": "x", "seeds": 2, "trials": 10, "seconds": 1.0}, "truths": [surface.summary()],
            "records": records}
    md = markdown(data)
    assert "| random |" in md and "target <= 5%" in md and "overstatement" in md


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

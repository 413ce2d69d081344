"""The public stripe-count sweeps load as recordings and the curve check scores them as documented."""

from __future__ import annotations

from pathlib import Path

from autotune.campaign import load_campaign
from autotune.launch import Recording
from experiments.evaluation import lustre_curves, lustre_scale

SWEEPS = Path(lustre_curves.__file__).resolve().parent / "sweeps"


def test_every_sweep_is_a_replayable_recording_with_its_source() -> None:
    files = sorted(SWEEPS.glob("*.csv"))
    assert len(files) >= 3
    for f in files:
        rec = Recording.load(f)
        assert rec.metric and rec.medians() and "source" in rec.header and "system" in rec.header
    ranger = Recording.load(SWEEPS / "ranger-t3pio-stripe-count.csv")
    assert all(len(runs) == 30 for runs in ranger.runs.values()) and len(ranger.runs) == 10


def test_the_curve_check_applies_the_stated_tolerance() -> None:
    assert (lustre_curves.RHO_MIN, lustre_curves.BEST_FACTOR, lustre_curves.POINT_FACTOR) == (0.8, 2.0, 2.0)
    results = {r["curve"]: r for r in (lustre_curves.evaluate(c) for c in lustre_curves.CURVES)}
    for r in results.values():
        within = all(0.5 <= p["ratio"] <= 2.0 for p in r["points"])
        assert r["within_2x"] == within
        assert r["passed"] == (r["rho_ok"] and r["best_ok"] and within)
    shaheen = next(r for r in results.values() if r["file"].startswith("shaheen"))
    assert shaheen["fitted"]  # reported, never counted as validation
    valid = [r for r in results.values() if not r["fitted"]]
    assert f"{sum(r['passed'] for r in valid)}/{len(valid)} unfitted curves" in lustre_curves.report(list(results.values()))


def test_the_cirrus_sweep_has_one_replayable_file_per_node_count() -> None:
    meds = {n: Recording.load(SWEEPS / f"cirrus-e1000-ior-shared-{n}n.csv").medians() for n in lustre_curves.CIRRUS_NODES}
    assert set(meds[1]) == set(meds[2]) == set(meds[3]) == {f"lustre.stripe_count={s}" for s in (1, 4, 8, 12, 16)}
    assert set(meds[4]) == {f"lustre.stripe_count={s}" for s in (1, 4, 8)}   # the source has no 12 or 16 at 4 nodes
    assert meds[4]["lustre.stripe_count=4"] == 5362.0    # the raw IOR report's median of its five writes (MiB/s)
    p = lustre_curves.cirrus(4)
    assert (p.ranks, p.ranks_per_node, p.block, p.transfer_size) == (144, 36, 16 << 20, 2 << 20)


def test_the_scale_check_replays_the_smallest_scale_as_a_campaign(tmp_path: Path) -> None:
    camp = load_campaign(lustre_scale.campaign(tmp_path, 1))
    assert camp.app.pattern == lustre_curves.cirrus(1)
    assert lustre_scale.measured(4) == {"lustre.stripe_count=1": 3125.66, "lustre.stripe_count=4": 5362.0,
                                        "lustre.stripe_count=8": 5416.0}
    archer = lustre_scale.SWEEPS[1]
    camp = load_campaign(lustre_scale.campaign(tmp_path, 1, archer))
    assert camp.app.pattern == lustre_curves.archer_ssf(24) and camp.budget.trials == 5  # 2 counts x 2 sizes + default
    assert set(lustre_scale.measured(256, archer)) == {f"lustre.stripe_count={c};lustre.stripe_size={s}"
                                                        for c in (4, 48) for s in (1 << 20, 8 << 20)}
    assert (lustre_scale.POINT_FACTOR, lustre_scale.BEST_WITHIN) == (2.0, 0.05)


def test_the_single_cirrus_runs_are_checked_with_the_points_tolerance() -> None:
    checked = lustre_curves.points()
    assert len(checked) == len(lustre_curves.POINTS) == 2
    for p in checked:
        assert p["passed"] == (0.5 <= p["model"] / p["measured"] <= 2.0)


def test_the_archer_curves_use_the_patterns_of_the_archer_campaigns() -> None:
    """One pattern per workload: the curve check predicts what the replayed campaigns declare."""
    campaigns = SWEEPS / "campaigns"
    for procs in lustre_curves.ARCHER_SSF:
        c = load_campaign(campaigns / f"archer-fs3-ssf-mpiio-{procs}p.yaml")
        assert c.app.pattern == lustre_curves.archer_ssf(procs), procs
    for procs in lustre_curves.ARCHER_FPP:
        c = load_campaign(campaigns / f"archer-fs3-fpp-fortran-{procs}p.yaml")
        assert c.app.pattern == lustre_curves.archer_fpp(procs), procs

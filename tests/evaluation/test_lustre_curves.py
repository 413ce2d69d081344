"""The public stripe-count sweeps load as recordings and the curve check scores them as documented."""

from __future__ import annotations

from pathlib import Path

from autotune.campaign import load_campaign
from autotune.launch import Recording
from experiments.evaluation import lustre_curves as LC
from experiments.evaluation import lustre_scale as LS

SWEEPS = Path(LC.__file__).resolve().parent / "sweeps"


def test_every_sweep_is_a_replayable_recording_with_its_source() -> None:
    files = sorted(SWEEPS.glob("*.csv"))
    assert len(files) >= 3
    for f in files:
        rec = Recording.load(f)
        assert rec.metric and rec.medians() and "source" in rec.header and "system" in rec.header
    ranger = Recording.load(SWEEPS / "ranger-t3pio-stripe-count.csv")
    assert all(len(runs) == 30 for runs in ranger.runs.values()) and len(ranger.runs) == 10


def test_the_curve_check_applies_the_stated_tolerance() -> None:
    assert (LC.RHO_MIN, LC.BEST_FACTOR, LC.POINT_FACTOR) == (0.8, 2.0, 2.0)
    results = {r["curve"]: r for r in (LC.evaluate(c) for c in LC.CURVES)}
    for r in results.values():
        within = all(0.5 <= p["ratio"] <= 2.0 for p in r["points"])
        assert r["within_2x"] == within
        assert r["passed"] == (r["rho_ok"] and r["best_ok"] and within)
    shaheen = next(r for r in results.values() if r["file"].startswith("shaheen"))
    assert shaheen["fitted"]  # reported, never counted as validation
    valid = [r for r in results.values() if not r["fitted"]]
    assert f"{sum(r['passed'] for r in valid)}/{len(valid)} unfitted curves" in LC.report(list(results.values()))


def test_the_cirrus_sweep_has_one_replayable_file_per_node_count() -> None:
    meds = {n: Recording.load(SWEEPS / f"cirrus-e1000-ior-shared-{n}n.csv").medians() for n in LC.CIRRUS_NODES}
    assert set(meds[1]) == set(meds[2]) == set(meds[3]) == {f"lustre.stripe_count={s}" for s in (1, 4, 8, 12, 16)}
    assert set(meds[4]) == {f"lustre.stripe_count={s}" for s in (1, 4, 8)}   # the source has no 12 or 16 at 4 nodes
    assert meds[4]["lustre.stripe_count=4"] == 5362.0    # the raw IOR report's median of its five writes (MiB/s)
    p = LC.cirrus(4)
    assert (p.ranks, p.ranks_per_node, p.block, p.transfer_size) == (144, 36, 16 << 20, 2 << 20)


def test_the_scale_check_replays_the_smallest_scale_as_a_campaign(tmp_path: Path) -> None:
    camp = load_campaign(LS.campaign(tmp_path, 1))
    assert camp.app.pattern == LC.cirrus(1)
    assert LS.measured(4) == {1: 3125.66, 4: 5362.0, 8: 5416.0}
    assert (LS.POINT_FACTOR, LS.BEST_WITHIN) == (2.0, 0.05)

"""The confirmation's evaluation runs end to end at small counts (the full one is a documented command)."""

from __future__ import annotations

import pytest

from experiments.evaluation.confirm_eval import (
    COMMON,
    NOISES,
    SD_RUN,
    SPREAD,
    calibrate,
    campaign,
    coverage,
    implied,
    markdown,
)
from experiments.evaluation.confirm_replay import noise_shape, replay


@pytest.mark.parametrize("noise", NOISES)
def test_the_noise_is_calibrated_to_the_stated_spread_or_run_sd(noise: str) -> None:
    import numpy as np

    from experiments.evaluation.confirm_eval import draw_noise

    model, how = noise.split("/")
    scale = calibrate(noise)
    x = draw_noise(model, scale, np.random.default_rng(1), (20000, 3))
    v = np.exp(x)
    if how == "spread":
        assert float(np.mean((v.max(1) - v.min(1)) / v.max(1))) == pytest.approx(SPREAD, abs=0.01)
    else:
        assert float(np.hypot(np.std(x), COMMON)) == pytest.approx(SD_RUN, abs=0.005)
        assert implied(noise, scale)["sd"] == pytest.approx(SD_RUN, abs=0.005)
    if model == "one-sided":
        assert (v <= 1).all()  # interference only slows a run down


def test_small_counts_of_every_part_render() -> None:
    scale = calibrate("two-sided/sd")
    assert 0.85 <= coverage("two-sided/sd", scale, 5, True, 150, 0) <= 1.0
    camps = [campaign("two-sided/sd", scale, g, s, 6) for g in (0.08, 0.0) for s in range(2)]
    assert all(c["rounds"] <= 6 and c["decision"] for c in camps)
    rep = replay("ior-strided-disk", "random", 0, 6)
    assert rep["changed"] and rep["recommended_true_gain"] > 0  # a several-fold gain is found and kept
    res = {"scales": dict.fromkeys(NOISES, scale), "implied": {m: implied(m, scale) for m in NOISES},
           "coverage": [{"model": m, "n": n, "history": h, "coverage": 0.95} for m in NOISES
                        for n in (3, 5, 9, 15, 30) for h in (False, True)],
           "campaigns": [{**c, "model": m} for c in camps for m in NOISES], "replays": [rep], "noise": noise_shape(),
           "replay_rounds": 6}
    text = markdown(res)
    assert "| two-sided/sd | 6 |" in text and "budget: 6 rounds" in text
    assert "ior-strided-disk" in text and "loaded/vpic-disk" in text


@pytest.mark.parametrize("noise", ["two-sided/sd", "one-sided/sd"])
def test_a_true_8_percent_gain_at_the_issues_noise_is_recommended_and_a_null_surface_is_not(noise: str) -> None:
    """The confirmation check at small counts (the committed evaluation runs 50 and 100 campaigns per cell)."""
    scale = calibrate(noise)
    gain = [campaign(noise, scale, 0.08, s, 60) for s in range(20)]
    null = [campaign(noise, scale, 0.0, 1000 + s, 60) for s in range(20)]
    assert sum(c["recommended"] == "better" for c in gain) >= 16
    assert sum(c["recommended"] != "default" for c in null) <= 2
    assert sum(c["covers"] for c in gain + null) >= 36

"""The confirmation's evaluation runs end to end at small counts (the full one is a documented command)."""

from __future__ import annotations

import pytest

from evaluation.confirm_eval import MODELS, SPREAD, calibrate, campaign, coverage, markdown, noise_shape, replay


@pytest.mark.parametrize("model", MODELS)
def test_the_noise_is_calibrated_to_the_stated_spread(model: str) -> None:
    import numpy as np

    from evaluation.confirm_eval import draw_noise

    v = np.exp(draw_noise(model, calibrate(model), np.random.default_rng(1), (20000, 3)))
    assert float(np.mean((v.max(1) - v.min(1)) / v.max(1))) == pytest.approx(SPREAD, abs=0.01)
    if model == "one-sided":
        assert (v <= 1).all()  # interference only slows a run down


def test_small_counts_of_every_part_render() -> None:
    scale = calibrate("two-sided")
    assert 0.85 <= coverage("two-sided", scale, 5, True, 150, 0) <= 1.0
    camps = [campaign("two-sided", scale, g, s, 6) for g in (0.08, 0.0) for s in range(2)]
    assert all(c["rounds"] <= 6 and c["decision"] for c in camps)
    rep = replay("ior-strided-disk", "random", 0, 6)
    assert rep["changed"] and rep["recommended_true_gain"] > 0  # a several-fold gain is found and kept
    res = {"scales": {"two-sided": scale, "one-sided": scale},
           "coverage": [{"model": m, "n": n, "history": h, "coverage": 0.95} for m in MODELS
                        for n in (3, 5, 9, 15, 30) for h in (False, True)],
           "campaigns": [{**c, "model": m} for c in camps for m in MODELS], "replays": [rep], "noise": noise_shape()}
    text = markdown(res)
    assert "| two-sided | 6 |" in text and "ior-strided-disk" in text and "loaded/vpic-disk" in text

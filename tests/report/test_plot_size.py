"""A report's plots stay small for a production study's long history."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("matplotlib", reason="the report extra (matplotlib) is not installed")

from autotune.report._svg import RASTER_POINTS, plt, to_svg


def scatter_svg(n: int) -> str:
    fig, ax = plt.subplots()
    rng = np.random.default_rng(0)
    ax.scatter(np.arange(n), rng.lognormal(size=n), s=16)
    return to_svg(fig)


def test_a_long_history_is_drawn_as_an_image_a_short_one_as_vectors() -> None:
    small, big = scatter_svg(RASTER_POINTS // 4), scatter_svg(50 * RASTER_POINTS)
    assert "<image" not in small and small.count("<use") >= RASTER_POINTS // 4  # every point a vector mark
    assert "<image" in big and big.count("<use") < 50  # the axes' tick marks only
    assert len(big) < 1_000_000  # 100,000 points: a bounded SVG, not one element per trial

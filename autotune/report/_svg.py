"""The report's drawing surface: matplotlib without a display, the palette and figures as inline SVG text."""

from __future__ import annotations

import io

import numpy as np

from autotune._extras import require

__all__ = ["COLORS", "RASTER_POINTS", "Figure", "MaxNLocator", "empty", "plt", "to_svg"]

matplotlib = require("matplotlib", "report", "the report's plots (autotune compare/report)")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 - after the backend is chosen
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")
plt.rcParams.update({"svg.fonttype": "none", "font.size": 9, "axes.grid": True, "grid.alpha": 0.3})


RASTER_POINTS = 2000  # a scatter with more points is drawn as an embedded image: the SVG stays small


def to_svg(fig: Figure) -> str:
    """The figure as SVG text; scatters of a long history (a production study: thousands of jobs) are
    rasterised, so the report's size does not grow with the number of trials."""
    for ax in fig.axes:
        for coll in ax.collections:
            if len(np.asarray(coll.get_offsets())) > RASTER_POINTS:
                coll.set_rasterized(True)
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = buf.getvalue()
    return text[text.index("<svg"):]


def empty(ax: plt.Axes, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, color="#555")
    ax.set_xticks([])
    ax.set_yticks([])

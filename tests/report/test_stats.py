"""Unit tests: the margin and its bootstrap interval, the recommendation."""

from __future__ import annotations

import numpy as np
import pytest

from autotune.errors import ConfigError
from autotune.report import TargetFigures, TrialRow, advantage, bootstrap_value, compare


def _row(n: int, reps: list[float], maximize: bool = True, default: bool = False) -> TrialRow:
    value = max(reps) if maximize else min(reps)
    return TrialRow(n, "COMPLETE", value, tuple(reps), {"p": n}, default, 10.0, None, None, None)


def _fig(label: str, best: list[float], default: list[float], metric: str = "bandwidth_mib_s",
         direction: str = "maximize") -> TargetFigures:
    mx = direction == "maximize"
    d, b = _row(0, default, mx, True), _row(1, best, mx)
    return TargetFigures(label, label, label, "sqlite://", None, "app", "sys", label, "posix", metric, direction,
                         len(best), 1, 2, [d, b], b, d, None, "", False, 20 / 3600, 0.0, 20.0)


def test_advantage_direction() -> None:
    assert advantage(110.0, 100.0, True) == pytest.approx(0.10)
    assert advantage(87.0, 100.0, False) == pytest.approx(0.13)  # 13% less time


def test_bootstrap_best_stays_within_the_repetitions() -> None:
    s = bootstrap_value(_row(1, [90.0, 100.0, 95.0]), "best", True, np.random.default_rng(0))
    assert s.min() >= 90.0 and s.max() == 100.0


def test_bootstrap_follows_the_campaigns_aggregate() -> None:
    """The interval is of the campaign's aggregate: a median of N is never above the best of N."""
    row, rng = _row(1, [90.0, 100.0, 95.0]), np.random.default_rng(0)
    med, best = bootstrap_value(row, "median", True, rng), bootstrap_value(row, "best", True, np.random.default_rng(0))
    assert 95.0 in med and med.mean() < best.mean() and (med <= 100.0).all()


def test_clear_winner_is_significant() -> None:
    cmp = compare([_fig("slow", [100, 98, 97], [60, 59, 58]), _fig("fast", [200, 198, 195], [150, 149, 140])])
    assert cmp.winner is not None and cmp.winner.label == "fast"
    assert cmp.significant and cmp.margin is not None and cmp.margin.advantage == pytest.approx(1.0)
    assert "Across campaigns: use fast" in cmp.recommendation
    assert "not measured side by side" in cmp.recommendation  # what the cross-campaign figure is, said plainly
    assert cmp.recommendation.startswith("slow: unconfirmed: the search's best of N")  # with the confirming command
    assert "confirm with `autotune tune slow.yaml`" in cmp.recommendation
    kinds = {(v.a, v.b_kind) for v in cmp.versus}
    assert ("fast", "default") in kinds and ("slow", "default") in kinds


def test_within_jitter_is_not_significant() -> None:
    cmp = compare([_fig("a", [100, 70, 80], [60, 50, 55]), _fig("b", [103, 75, 90], [60, 50, 55])])
    assert not cmp.significant
    assert "within the run-to-run jitter" in cmp.recommendation


def test_minimize_ranks_the_shorter_time_first() -> None:
    cmp = compare([_fig("lustre", [110, 112, 111], [112, 113, 114], "seconds", "minimize"),
                   _fig("bb", [97, 98, 99], [130, 131, 132], "seconds", "minimize")])
    assert cmp.winner is not None and cmp.winner.label == "bb"
    assert cmp.margin is not None and cmp.margin.advantage == pytest.approx(13 / 110)


def test_different_objectives_are_refused() -> None:
    with pytest.raises(ConfigError, match="different objectives"):
        compare([_fig("a", [1, 2], [1, 1]), _fig("b", [1, 2], [1, 1], "seconds", "minimize")])


def test_within_jitter_a_cost_difference_inside_the_noise_keeps_the_winner() -> None:
    from dataclasses import replace

    a, b = _fig("a", [100, 70, 80], [60, 50, 55]), _fig("b", [103, 75, 90], [60, 50, 55])
    cmp = compare([replace(a, node_hours=0.98 * b.node_hours), b])  # a 2% cheaper: noise
    assert cmp.winner is not None and cmp.winner.label == "b"
    assert cmp.recommendation.endswith("their costs are within the noise too, so take b.")
    cmp = compare([replace(a, node_hours=0.5 * b.node_hours), b])  # a half the cost: worth naming
    assert cmp.recommendation.endswith("a is the cheaper to run.")


def test_one_campaign_states_its_confirmed_gains_and_never_asks_for_other_campaigns() -> None:
    f = _fig("local/disk", [200, 198, 195], [100, 99, 98])
    f.confirmation = {"winner": "trial 1"}
    f.claim = ("recommendation: trial 1: +95.0% over the default (95% interval +80.0% to +110.0%); +20.0% over the "
               "best rule of thumb r (95% interval +5.0% to +35.0%)")
    cmp = compare([f])
    assert "run the other" not in cmp.recommendation
    assert cmp.recommendation.startswith("local/disk: confirmed recommendation: trial 1: +95.0% over the default")
    assert "over the best rule of thumb r" in cmp.recommendation


def test_no_scaling_plot_of_a_resource_the_campaign_did_not_search() -> None:
    from autotune.report._plots import searched_resource

    f = _fig("local/disk", [200, 198, 195], [100, 99, 98])  # posix: the resource is the aggregators
    assert not searched_resource(f)
    f.searched = ("mpiio.cb_nodes",)
    assert searched_resource(f)

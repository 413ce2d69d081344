"""The diverse model start: the model's best, the other side of the collective-buffering fork, far-apart picks."""

from __future__ import annotations

from pathlib import Path

import pytest

from autotune.campaign import Runtime
from autotune.optimize import model_metric, model_ranked
from autotune.optimize._diverse import FLOOR, distance, diverse_ranked
from autotune.space import BoundSpace
from autotune.testing import wrf_model_campaign

METRIC = "write_bandwidth_mib_s"


def test_twins_are_at_distance_zero_and_ranges_are_normalised(wrf_space: BoundSpace) -> None:
    space = wrf_space
    base = {**space.default_config(), "mpiio.romio_cb_write": "disable"}
    assert distance(space, base, {**base, "mpiio.cb_nodes": 64}) == 0.0  # aggregators do not exist when disabled
    on = {**base, "mpiio.romio_cb_write": "enable"}
    assert distance(space, on, {**on, "mpiio.cb_nodes": 64}) > 0.5
    far = {**on, "lustre.stripe_count": 144, "lustre.stripe_size": 1 << 26, "mpiio.cb_nodes": 144}
    near = {**on, "lustre.stripe_count": 1, "lustre.stripe_size": 1 << 16, "mpiio.cb_nodes": 1}
    assert distance(space, near, far) <= 3 ** 0.5 + 1e-9  # each numeric range counts at most 1


def test_picks_spread_over_the_ridge_and_across_the_fork(wrf_space: BoundSpace) -> None:
    space = wrf_space
    top = model_ranked(space, METRIC, True, 4)
    picks = diverse_ranked(space, METRIC, True, 4)
    assert picks[0] == top[0] and len(picks) == 4
    assert picks[1]["mpiio.romio_cb_write"] == "disable" != picks[0]["mpiio.romio_cb_write"]  # the fork's other side
    best = model_metric(space, picks[0], METRIC) or 0.0
    for p in picks[2:]:
        assert (model_metric(space, p, METRIC) or 0.0) >= FLOOR * best  # still good by the model ...
        assert min(distance(space, p, q) for q in picks[:2]) > 0.5  # ... and in another region
    # the ranked top four are near-twins of the best (one ridge point); the diverse picks are not
    assert max(distance(space, t, top[0]) for t in top) < min(distance(space, p, top[0]) for p in picks[1:])
    assert diverse_ranked(space, METRIC, True, 1) == top[:1]


def _listed_counts(tmp_path: Path) -> BoundSpace:
    """Shaheen II's Lustre with the stripe counts a user listed (a categorical of numbers) as the only setting."""
    return Runtime.build(wrf_model_campaign(tmp_path, space={
        "use": "lustre-cray", "only": ["lustre.stripe_count"],
        "parameters": {"lustre.stripe_count": {"type": "categorical", "choices": [4, 8, 16, 32, 64, 128], "default": 4}}},
    )).space


def test_a_categorical_of_numbers_is_ordered_on_the_log_scale(tmp_path: Path) -> None:
    space = _listed_counts(tmp_path)
    d = {n: distance(space, {"lustre.stripe_count": 16}, {"lustre.stripe_count": n}) for n in (8, 32, 64, 128)}
    assert d[8] == pytest.approx(d[32]) == pytest.approx(0.2)  # one doubling of five
    assert d[32] < d[64] < d[128] == pytest.approx(0.6)
    assert distance(space, {"lustre.stripe_count": 4}, {"lustre.stripe_count": 128}) == pytest.approx(1.0)


def test_picks_spread_away_from_what_runs_anyway_and_a_pick_that_is_one_of_them_is_not_counted(
        tmp_path: Path) -> None:
    space = _listed_counts(tmp_path)
    plain = diverse_ranked(space, METRIC, True, 3)
    anchors = [space.default_config(), {"lustre.stripe_count": 128}]  # the default and a rule of thumb
    picks = diverse_ranked(space, METRIC, True, 3, anchors=anchors)
    assert picks[0] == plain[0]  # the model's best stays first
    assert sum(p not in anchors for p in picks) == 3 and len(picks) == len({p["lustre.stripe_count"] for p in picks})
    spread = [min(distance(space, p, q) for q in [*anchors, *picks[:i]]) for i, p in enumerate(picks) if i]
    assert all(s >= 0.2 - 1e-9 for s in spread)  # no later pick next to an anchor or to an earlier pick



EAGLE = """name: eagle-like
mpi: {flavour: cray-mpich}
node: {cores: 32}
filesystems:
  lfs: {kind: lustre, osts: 160, oss: 40, default_stripe_count: 1, default_stripe_size: 1MiB,
        model: {ost_write_bw: 4.06GB, ost_read_bw: 4.06GB, oss_bw: 16.2GB}}
model: {node_bw: 25GB}
"""


def test_a_time_metric_gets_the_same_spread_start_as_its_bandwidth(tmp_path: Path) -> None:
    """Minimising the write time is maximising the write bandwidth of the same bytes: the picks are the same and
    the anchors are honoured alike (a minimised metric used to get the model's near-twin top picks instead: 64
    and 128 stripes beside the rules' 32 and 160, here 64 and 8). 160 OSTs at 650 GB/s (ALCF Eagle's published
    figures), 128 ranks on 32 nodes writing 64 MiB blocks of one shared file, independent I/O."""
    (tmp_path / "eagle.yaml").write_text(EAGLE)
    space = Runtime.build(wrf_model_campaign(
        tmp_path, system="eagle.yaml", target={"filesystem": "lfs"},
        app={"command": ["ior"], "ranks": 128, "nodes": 32, "metric": {"extractor": "json"},
             "pattern": {"bytes_per_rank": "512MiB", "transfer_size": "1MiB", "block_size": "64MiB",
                         "io_mode": "independent"}},
        space={"use": "lustre-cray", "only": ["lustre.stripe_count"], "parameters": {"lustre.stripe_count": {
            "type": "categorical", "choices": [1, 4, 8, 16, 32, 64, 128, 160], "default": 1}}})).space
    anchors = [space.default_config(), {"lustre.stripe_count": 32}, {"lustre.stripe_count": 160}]
    by_time = diverse_ranked(space, "write_seconds", False, 2, anchors=anchors)
    assert by_time == diverse_ranked(space, METRIC, True, 2, anchors=anchors)
    assert [p["lustre.stripe_count"] for p in by_time if p not in anchors] == [64, 8]  # the best, 32, is a rule

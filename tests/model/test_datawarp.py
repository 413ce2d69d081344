"""DataWarp: capacity, per-node bandwidth, writers per node, transfer size, wrap-around, no cache."""

from __future__ import annotations

import pytest

from autotune.errors import ConfigError
from autotune.model import Constants, predict
from autotune.model import _scenarios as scenarios
from autotune.model._datawarp import dvs_requests
from autotune.pattern import IOPattern
from autotune.systems import SystemProfile

MIB = 1 << 20


def ior(ranks: int, transfer: int = MIB) -> IOPattern:
    return IOPattern(ranks=ranks, nodes=ranks, bytes_per_rank=100 * MIB, transfer_size=transfer,
                     io_mode="independent")


def test_capacity_below_the_data_is_rejected(cori: SystemProfile) -> None:
    big = IOPattern(ranks=64, nodes=16, bytes_per_rank=4 << 30)  # 256 GiB > 2 x 82 GiB
    with pytest.raises(ConfigError, match=r"bb\.nodes"):
        predict(big, cori, "bb", {"bb.nodes": 2})
    assert predict(big, cori, "bb", {"bb.nodes": 4}).seconds > 0
    assert predict(big, cori, "bb").hints_in_effect["bb_nodes"] == 4  # the smallest allocation that fits


def test_bandwidth_never_exceeds_bb_nodes_times_node_bandwidth(cori: SystemProfile) -> None:
    for nodes in (1, 2, 4, 8):
        bw = predict(ior(64), cori, "bb", {"bb.nodes": nodes}).bandwidth_gb_s
        assert bw <= nodes * 6.5 * 1.0001


def test_fewer_than_four_writers_cannot_saturate_a_node(cori: SystemProfile) -> None:
    bw = {w: predict(ior(w), cori, "bb", {"bb.nodes": 1}).bandwidth_gb_s for w in (1, 2, 3, 4, 8)}
    assert bw[1] < bw[2] < bw[3] < bw[4]
    assert bw[3] < 0.9 * 6.5 <= bw[4]
    assert bw[8] == pytest.approx(bw[4], rel=0.05)  # saturated; only the metadata term differs


def test_small_transfers_lose_bandwidth(cori: SystemProfile) -> None:
    bw = {t: predict(ior(64, t), cori, "bb", {"bb.nodes": 10}).bandwidth_gb_s
          for t in (64 << 10, 128 << 10, 512 << 10, MIB)}
    assert bw[64 << 10] < bw[128 << 10] < bw[512 << 10]
    assert bw[512 << 10] >= 0.9 * bw[MIB]


def test_dvs_requests_split_at_stripe_boundaries() -> None:
    assert dvs_requests(8 * MIB, 8 * MIB, True) == 1.0
    assert dvs_requests(8 * MIB, 8 * MIB, False) == 2.0
    assert dvs_requests(MIB, 8 * MIB, False) > 1.0


def test_hdf5_alignment_to_the_dvs_stripe_helps(cori: SystemProfile) -> None:
    pat = scenarios.VPIC_SMALL.with_(ranks=64, nodes=64, io_mode="independent", transfer_size=MIB // 2,
                                     bytes_per_rank=64 * MIB)
    plain = predict(pat, cori, "bb", {"bb.nodes": 64}).seconds
    aligned = predict(pat, cori, "bb", {"bb.nodes": 64, "hdf5.alignment": 8 * MIB}).seconds
    assert aligned < plain


def test_no_client_cache_on_datawarp(cori: SystemProfile) -> None:
    ph = predict(ior(64), cori, "bb", {"bb.nodes": 10}).phase("write")
    assert ph.term("client cache") is None


def test_round_robin_wrap_shares_nodes(cori: SystemProfile) -> None:
    pat = IOPattern(ranks=2048, nodes=512, bytes_per_rank=64 * MIB, transfer_size=8 * MIB, io_mode="independent")
    fits = predict(pat, cori, "bb", {"bb.nodes": 80, "bb.pool": "sm_pool"})
    wraps = predict(pat, cori, "bb", {"bb.nodes": 160, "bb.pool": "sm_pool"})
    assert wraps.bandwidth_gb_s <= fits.bandwidth_gb_s * 1.0001
    assert any("wraps" in n for n in wraps.notes)


def test_independent_beats_unmatched_collective(cori: SystemProfile) -> None:
    coll = predict(scenarios.VPIC_SMALL, cori, "bb", {"bb.nodes": 65, **scenarios.VPIC_AGGS})
    ind = predict(scenarios.VPIC_SMALL, cori, "bb", {"bb.nodes": 65, "mpiio.romio_cb_write": "disable"})
    assert ind.bandwidth_gb_s > 2 * coll.bandwidth_gb_s


def test_constants_override_from_the_profile(cori: SystemProfile) -> None:
    from autotune.model import constants_for

    c = constants_for(cori, cori.filesystem("bb"))
    assert c.bb_node_bw == 6.5e9 and Constants().cpu_factor == 1.0

"""Lustre extent locks by region, the client's own ceiling and fan-out (docs/model.md)."""

from __future__ import annotations

import math

import pytest

from autotune.model import FIT_NAMES, PRIOR_WEIGHT, SPAN, Constants, MeasuredRun, constants_for, fit_constants, predict
from autotune.model._lustre import client_ceiling, lock_switches, lock_unit, node_locks, region
from autotune.pattern import IOPattern
from autotune.systems import SystemProfile, parse_system

MIB = 1 << 20
# 160 OSTs at 650 GB/s (ALCF Eagle's published figures), 200 Gb/s nodes; one shared file.
EAGLE = {
    "name": "eagle-like", "mpi": {"flavour": "cray-mpich"}, "node": {"cores": 32},
    "filesystems": {"lfs": {"kind": "lustre", "osts": 160, "oss": 40, "default_stripe_count": 1,
                            "default_stripe_size": "1MiB",
                            "model": {"ost_write_bw": "4.06GB", "ost_read_bw": "4.06GB", "oss_bw": "16.2GB"}}},
    "model": {"node_bw": "25GB"},
}


@pytest.fixture(scope="module")
def eagle() -> SystemProfile:
    return parse_system(EAGLE)


def contiguous(nodes: int, transfer: int = MIB) -> IOPattern:
    """4 ranks per node, 512 MiB each as contiguous blocks of one shared file, independent MPI-IO."""
    return IOPattern(ranks=4 * nodes, nodes=nodes, bytes_per_rank=512 * MIB, transfer_size=transfer,
                     io_mode="independent")


def test_stripe_one_contiguous_blocks_stream_at_the_ost_not_at_a_lock_per_transfer(eagle: SystemProfile) -> None:
    """128 ranks on 32 nodes, 1 MiB transfers in 64 MiB blocks, stripe count 1: measured 4-17x above the 0.32 GB/s that a lock
    hand-over per transfer gave; with locks per region the one OST streams (within a factor 2 of it)."""
    pred = predict(contiguous(32).with_(block_size=64 * MIB), eagle, None, {"lustre.stripe_count": 1})
    assert 4 * 0.32 <= pred.bandwidth_gb_s <= 4.06
    assert pred.bandwidth_gb_s >= 4.06 / 4
    locks = pred.phase("write").term("extent locks")
    assert locks is not None and locks.seconds < 0.25 * pred.seconds


def test_regions_follow_the_layout() -> None:
    pat = contiguous(32)
    assert region(pat, MIB, 1) == 512 * MIB                       # a rank's block, all in one object
    assert region(pat, MIB, 160) == 512 * MIB / 160               # spread evenly over the objects
    assert region(pat.with_(bytes_per_rank=MIB // 2), MIB, 8) == MIB // 2     # below a stripe unit: shared
    strided = pat.with_(layout="strided", piece_size=4096)
    assert region(strided, MIB, 8) == 4096
    segmented = pat.with_(block_size=64 * MIB)                    # IOR -b 64m -s 8: blocks of all ranks alternate
    assert region(segmented, MIB, 16) == 4 * MIB and region(segmented, MIB, 160) == MIB


def test_locks_count_regions_not_transfers() -> None:
    c = Constants()
    small, large = contiguous(32, 64 << 10), contiguous(32, 16 * MIB)
    assert lock_switches(c, small, MIB, 4, 128) == lock_switches(c, large, MIB, 4, 128) > 0
    assert lock_unit(c, small, MIB, 1) == c.lock_grow             # a contended lock grows at most 32 MiB
    strided = small.with_(layout="strided", piece_size=64 << 10)
    assert lock_switches(c, strided, MIB, 4, 128) > 10 * lock_switches(c, small, MIB, 4, 128)


def test_a_node_client_moves_a_bounded_rate_per_ost_and_at_most_its_nic() -> None:
    c = Constants().with_(node_bw=25e9, ost_write_bw=4.06e9)
    one, four, many = (client_ceiling(c, n, "write") for n in (1, 4, 1000))
    assert one < four and many == pytest.approx(25e9)
    rtt = c.write_latency + c.rpc_size / 4.06e9
    assert one == pytest.approx(c.rpcs_in_flight * c.rpc_size / rtt)


def test_with_few_nodes_full_striping_is_slower_than_a_moderate_count(eagle: SystemProfile) -> None:
    """Fan-out: every client takes a lock per region on every OST; with few nodes the lock round trips
    outweigh the extra OSTs, with many nodes they do not (the optimum moves with the node count)."""
    counts = (1, 8, 32, 64, 160)

    def best(nodes: int) -> int:
        bw = {sc: predict(contiguous(nodes), eagle, None, {"lustre.stripe_count": sc}).bandwidth_gb_s
              for sc in counts}
        return max(bw, key=bw.__getitem__)

    small, large = best(32), best(128)
    assert small < 160 and large == 160


def test_adding_osts_stops_helping_once_the_clients_are_the_limit(eagle: SystemProfile) -> None:
    two = IOPattern(ranks=8, nodes=2, bytes_per_rank=4 << 30, transfer_size=16 * MIB, io_mode="independent")
    bw = [predict(two, eagle, None, {"lustre.stripe_count": sc}).bandwidth_gb_s for sc in (8, 32, 160)]
    assert max(bw) <= 2 * 25 * 1.0001                              # two 200 Gb/s nodes
    assert bw[2] <= bw[1] * 1.05


def test_a_fit_at_few_nodes_carries_to_many_when_the_mechanisms_hold(eagle: SystemProfile) -> None:
    """Runs at 32 nodes from the model with other constants (a faster OST repositioning, cheaper locks) fitted with
    ``model fit``'s constants, seek_time among them, predict 128 nodes within 1.25x and closer than the unfitted
    profile at every stripe count. At 32 nodes the nodes' file ceiling binds from 16 stripes on; at both scales a
    node's ranks share its locks (64 MiB blocks fill a stripe unit, ``node_locks``), so the fit sees the lock and seek
    constants only through the small stripe counts and the move stays within one regime."""
    fs = eagle.filesystem()
    truth = constants_for(eagle, fs).with_(seek_time=0.3e-3, lock_time=0.4e-3)

    def pat(nodes: int) -> IOPattern:
        return contiguous(nodes).with_(block_size=64 * MIB)

    counts = (1, 4, 16, 64, 160)

    def fitted(small: int) -> Constants:
        runs = [MeasuredRun(pat(small), {"lustre.stripe_count": sc},
                            predict(pat(small), eagle, None, {"lustre.stripe_count": sc}, constants=truth).seconds)
                for sc in counts]
        fit = fit_constants(runs, eagle, FIT_NAMES["lustre"], fs.name, bounds=(1 / SPAN, SPAN),
                            prior_weight=PRIOR_WEIGHT)
        assert "seek_time" in fit.values and "node_file_bw" in fit.values
        return fit.constants

    for small, large, within in ((8, 32, 1.15), (32, 128, 1.25)):
        c = fitted(small)
        for sc in counts:
            cfg = {"lustre.stripe_count": sc}
            true = predict(pat(large), eagle, None, cfg, constants=truth).seconds
            ratio = predict(pat(large), eagle, None, cfg, constants=c).seconds / true
            unfitted = predict(pat(large), eagle, None, cfg).seconds / true
            assert 1 / within < ratio < within
            assert abs(math.log(ratio)) < abs(math.log(unfitted))


def test_a_constant_the_profile_switches_off_is_not_fitted(eagle: SystemProfile) -> None:
    nvme = parse_system({**EAGLE, "filesystems": {"lfs": {**EAGLE["filesystems"]["lfs"],
                                                          "model": {"ost_write_bw": "4GB", "seek_time": 0}}}})
    runs = [MeasuredRun(contiguous(4), {"lustre.stripe_count": sc}, 10.0 / sc) for sc in (1, 4, 16)]
    fit = fit_constants(runs, nvme, ("ost_write_bw", "seek_time"), "lfs", bounds=(0.05, 20), prior_weight=0.3)
    assert set(fit.values) == {"ost_write_bw"} and fit.constants.seek_time == 0.0


def test_a_nodes_ranks_share_its_locks_while_few_nodes_write_an_object() -> None:
    """Extent locks are held by nodes, not processes: 36 ranks on one node writing their blocks of one file hand
    no lock over; on 4 nodes a node's 36 consecutive blocks are one region."""
    c = Constants()
    pat = IOPattern(ranks=36, nodes=1, bytes_per_rank=1600 * MIB, transfer_size=2 * MIB, block_size=16 * MIB,
                    io_mode="independent", library="posix")
    assert region(pat, MIB, 8, by_node=True) == 36 * 16 * MIB / 8
    assert region(pat, MIB, 8) == 2 * MIB
    assert lock_switches(c, pat, MIB, 8, 1.0, by_node=True) == 0.0
    four = pat.with_(ranks=144, nodes=4)
    assert lock_switches(c, four, MIB, 8, 4.0, by_node=True) < lock_switches(c, four, MIB, 8, 4.0) / 10


def test_one_node_writes_a_shared_file_at_its_client_file_ceiling_whatever_the_stripe_count() -> None:
    """One node's client moves one shared file at ``node_file_bw`` (unset: one process's stream), so the stripe
    count does not matter on one node and the bandwidth grows with the nodes until the OSTs bind."""
    eagle = parse_system({**EAGLE, "model": {"node_bw": "25GB", "node_file_bw": "1.5GB"}})

    def bw(nodes: int, sc: int) -> float:
        pat = IOPattern(ranks=36 * nodes, nodes=nodes, bytes_per_rank=1600 * MIB, transfer_size=2 * MIB,
                        block_size=16 * MIB, io_mode="independent", library="posix")
        return predict(pat, eagle, None, {"lustre.stripe_count": sc}).bandwidth_gb_s

    one = [bw(1, sc) for sc in (1, 4, 16)]
    assert max(one) == pytest.approx(1.5, rel=1e-3) and min(one) > 0.95 * 1.5
    assert 0.95 * 4 * 1.5 < bw(4, 8) <= 4 * 1.5 * 1.0001
    assert constants_for(parse_system(EAGLE), parse_system(EAGLE).filesystem()).node_file_bw == pytest.approx(
        constants_for(parse_system(EAGLE), parse_system(EAGLE).filesystem()).write_stream)


def test_past_32_nodes_per_object_a_node_keeps_its_locks_only_for_blocks_that_fill_a_stripe_unit() -> None:
    """Past 32 conflicting locks the server grows a lock at most 32 MiB and never over another client's: a rank's
    64 MiB block still runs on into its node's siblings' blocks, but 100 KB pieces share stripe units with other
    nodes' pieces and are each their own region (the ALCF Theta talk: independent 100 KB IOR loses to collective)."""
    blocks = contiguous(64).with_(block_size=64 * MIB)
    pieces = blocks.with_(layout="strided", piece_size=100_000)
    assert node_locks(blocks, MIB, 64) and node_locks(blocks, 64 * MIB, 64)
    assert not node_locks(blocks, 128 * MIB, 64)
    assert not node_locks(pieces, MIB, 64) and node_locks(pieces, MIB, 32)


@pytest.mark.parametrize("ranks_per_node", [4, 32])
def test_the_best_stripe_count_moves_with_the_node_count(eagle: SystemProfile, ranks_per_node: int) -> None:
    """IOR-like 64 MiB blocks of 512 MiB per rank, 1 MiB transfers, independent, on 160 OSTs: the model's best
    stripe count is within 2x of the node count at 32, 64 and 128 nodes (not all OSTs at every count), and one node
    more than 32 per object does not halve the bandwidth (no step where the server starts curtailing locks)."""
    counts = (1, 2, 4, 8, 16, 32, 64, 128, 160)

    def bw(nodes: int, sc: int) -> float:
        pat = IOPattern(ranks=ranks_per_node * nodes, nodes=nodes, bytes_per_rank=512 * MIB, transfer_size=MIB,
                        block_size=64 * MIB, io_mode="independent")
        return predict(pat, eagle, None, {"lustre.stripe_count": sc}).bandwidth_gb_s

    for nodes in (32, 64, 128):
        curve = {sc: bw(nodes, sc) for sc in counts}
        best = max(curve, key=curve.__getitem__)
        assert nodes / 2 <= best <= 2 * nodes, (nodes, curve)
    assert bw(33, 64) >= bw(32, 64)

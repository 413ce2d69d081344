"""Collective buffering: aggregators, collective buffer, exchange phase, imbalance."""

from __future__ import annotations

import pytest

from autotune.model import _scenarios as scenarios
from autotune.model import predict
from autotune.model._mpiio import mapping_imbalance, straggler
from autotune.systems import SystemProfile, parse_system

MIB = 1 << 20


def test_cray_aggregators_default_to_stripe_count_times_multiplier(theta: SystemProfile) -> None:
    assert predict(scenarios.THETA_IOR, theta, "projects", {"lustre.stripe_count": 48}).aggregators == 48
    cfg = {"lustre.stripe_count": 48, "cray.cb_nodes_multiplier": 4}
    assert predict(scenarios.THETA_IOR, theta, "projects", cfg).aggregators == 192
    assert predict(scenarios.THETA_IOR, theta, "projects", {"mpiio.cb_nodes": 8}).aggregators == 8


def test_cray_ignores_cb_buffer_size_romio_uses_it(theta: SystemProfile) -> None:
    a = predict(scenarios.THETA_IOR, theta, "projects", {"mpiio.cb_buffer_size": 4 * MIB})
    assert a.hints_in_effect["cb_buffer_size"] == MIB  # the stripe size
    romio = parse_system({"name": "r", "mpi": {"flavour": "mpich"},
                          "filesystems": {"l": {"kind": "lustre", "osts": 8}}})
    b = predict(scenarios.THETA_IOR, romio, None, {"mpiio.cb_buffer_size": 4 * MIB, "mpiio.romio_cb_write": "enable"})
    assert b.hints_in_effect["cb_buffer_size"] == 4 * MIB and b.aggregators == scenarios.THETA_IOR.nodes


def test_disabling_collective_buffering_removes_the_exchange(theta: SystemProfile) -> None:
    pred = predict(scenarios.THETA_IOR, theta, "projects", {"mpiio.romio_cb_write": "disable"})
    assert pred.aggregators == 0 and pred.phase("write").term("exchange phase") is None


def test_straggler_grows_with_aggregators() -> None:
    assert straggler(1, 0.4) == 1.0
    assert 1.0 < straggler(8, 0.4) < straggler(64, 0.4) < straggler(1024, 0.4)


def test_mapping_imbalance() -> None:
    assert mapping_imbalance(64, 64) == 1.0
    assert mapping_imbalance(128, 64) == 1.0
    assert mapping_imbalance(64, 65) == pytest.approx(2 * 64 / 65)
    assert mapping_imbalance(100, 64) > 1.0


def test_aggregators_not_a_multiple_of_bb_nodes_is_slower(cori: SystemProfile) -> None:
    def bw(aggs: int, nodes: int) -> float:
        return predict(scenarios.VPIC_SMALL, cori, "bb", {"bb.nodes": nodes, "mpiio.cb_nodes": aggs}).bandwidth_gb_s

    assert bw(64, 64) > bw(64, 65)
    assert bw(128, 64) > bw(100, 64)


def test_more_aggregators_help_until_the_call_runs_out_of_stripes(shaheen: SystemProfile) -> None:
    part = scenarios.WRF_PARTS[0]
    t = {a: predict(part, shaheen, "bb", {"bb.nodes": 1, "mpiio.cb_nodes": a, "lustre.stripe_size": MIB}).seconds
         for a in (1, 2, 8, 15, 40)}
    assert t[1] > t[2] > t[8] > t[15]
    assert t[40] == pytest.approx(t[15], rel=0.05)

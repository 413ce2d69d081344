"""The model sees the host's cores: the built-in ``local`` profile detects them when it is loaded."""

from __future__ import annotations

import pytest

from autotune.model import constants_for, predict
from autotune.pattern import IOPattern
from autotune.systems import load_system
from autotune.testing import simulate_cores

MIB = 1 << 20
EIGHT = IOPattern(ranks=8, nodes=1, bytes_per_rank=64 * MIB, transfer_size=MIB)  # the IOR of a 16-core host
CONFIGS = ({"mpiio.romio_cb_write": "enable"}, {"mpiio.romio_cb_write": "automatic"},
           {"mpiio.romio_cb_write": "disable"})


def _seconds(cfg: dict[str, object], oversub_slice: float) -> float:
    system = load_system("local")
    base = constants_for(system, system.filesystem("disk"))
    return predict(EIGHT, system, "disk", cfg, constants=base.with_(oversub_slice=oversub_slice)).seconds


def test_eight_ranks_on_a_16_core_host_are_not_oversubscribed(monkeypatch: pytest.MonkeyPatch) -> None:
    simulate_cores(monkeypatch, 16)
    system = load_system("local")
    assert system.cores_per_node == 16 and "affinity" in system.cores_source
    for cfg in CONFIGS:  # no collective waits for the scheduler: the slice does not matter
        assert _seconds(cfg, 0.05) == pytest.approx(_seconds(cfg, 0.0), rel=1e-12)


def test_eight_ranks_on_a_2_core_host_are(monkeypatch: pytest.MonkeyPatch) -> None:
    simulate_cores(monkeypatch, 2)
    assert load_system("local").cores_per_node == 2
    assert _seconds(CONFIGS[0], 0.05) > _seconds(CONFIGS[0], 0.0) + 0.05


def test_slurm_allocation_cores_win(monkeypatch: pytest.MonkeyPatch) -> None:
    simulate_cores(monkeypatch, 64)
    monkeypatch.setenv("SLURM_CPUS_ON_NODE", "16")
    system = load_system("local")
    assert (system.cores_per_node, system.cores_source) == (16, "SLURM_CPUS_ON_NODE")

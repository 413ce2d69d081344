"""Settings that cannot act are never exported."""

from __future__ import annotations

from autotune.hints import inert

CFG = {"mpiio.romio_cb_write": "disable", "mpiio.cb_nodes": 4, "mpiio.cb_buffer_size": 1 << 20,
       "mpiio.cb_config_list": "*:4", "mpiio.romio_ds_write": "enable"}


def test_aggregator_settings_are_inert_without_collective_buffering() -> None:
    out = inert(CFG, ("write",))
    assert set(out) == {"mpiio.cb_nodes", "mpiio.cb_buffer_size", "mpiio.cb_config_list"}
    assert "romio_cb_write=disable" in out["mpiio.cb_nodes"]


def test_they_act_when_collective_buffering_can_act() -> None:
    assert inert({**CFG, "mpiio.romio_cb_write": "automatic"}, ("write",)) == {}
    assert inert(CFG, ("write", "read")) == {}  # collective reads still use the aggregators
    assert set(inert({**CFG, "mpiio.romio_cb_read": "disable"}, ("write", "read"))) >= {"mpiio.cb_nodes"}

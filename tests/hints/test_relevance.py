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


def test_the_measured_phase_decides_what_can_act() -> None:
    from autotune.hints import measured_phases

    assert measured_phases("write_bandwidth_mib_s", ("write", "read")) == ("write",)
    assert measured_phases("read_seconds", ("write", "read")) == ("read",)
    assert measured_phases("seconds", ("write", "read")) == ("write", "read")
    assert measured_phases("read_x", ("write",)) == ("write",)  # no read phase: the name is not a phase
    # a write objective: collective reads would use the aggregators, but the campaign never measured them
    cfg = {**CFG, "mpiio.romio_cb_read": "enable", "mpiio.romio_ds_read": "disable"}
    out = inert(cfg, measured_phases("write_bandwidth_mib_s", ("write", "read")))
    assert {"mpiio.cb_nodes", "mpiio.romio_cb_read", "mpiio.romio_ds_read"} <= set(out)
    assert "mpiio.romio_cb_write" not in out
    assert "mpiio.romio_cb_write" in inert(cfg, ("read",))


def test_a_fixed_setting_is_the_campaigns_choice_unless_inert() -> None:
    from autotune.hints import acting

    missing = {"romio_ds_write": {"why": "not reported"}, "cb_nodes": {"why": "capped"}}
    config = {"mpiio.romio_ds_write": "disable", "mpiio.cb_nodes": 4, "lustre.stripe_count": 8}
    kept, dropped = acting(config, ("write",), missing, judged={"mpiio.cb_nodes", "lustre.stripe_count"})
    assert kept == {"mpiio.romio_ds_write": "disable", "lustre.stripe_count": 8}
    assert set(dropped) == {"mpiio.cb_nodes"} and "cb_nodes not in effect (capped)" in dropped["mpiio.cb_nodes"]

"""ineffective_hints: which requested MPI-IO hints did not take effect."""

from __future__ import annotations

from autotune.measure import count_aggregators, ineffective_hints

UFS = "UFS: Generic ROMIO driver for all UNIX-like file systems"
# What MPICH 4.0.2 returned for cb_nodes=4 on one node with 2 ranks (cb_config_list left at default).
CAPPED = {"cb_nodes": "1", "cb_config_list": "*:1", "romio_cb_write": "enable",
          "cb_buffer_size": "16777216", "striping_unit": "1048576",
          "romio_filesystem_type": UFS, "romio_aggregator_list": "0 "}


def test_all_in_effect_gives_empty() -> None:
    assert ineffective_hints({"romio_cb_write": "enable", "cb_buffer_size": "16777216"}, CAPPED) == {}


def test_capped_cb_nodes_is_reported_with_the_reason() -> None:
    out = ineffective_hints({"cb_nodes": "4"}, CAPPED)
    assert out["cb_nodes"]["requested"] == "4"
    assert out["cb_nodes"]["in_effect"] == "1"
    assert "cb_config_list=*:*" in out["cb_nodes"]["why"]


def test_cb_nodes_counts_the_aggregator_list_not_the_echo() -> None:
    in_effect = dict(CAPPED, cb_nodes="2", cb_config_list="*:*", romio_aggregator_list="0 1 ")
    assert ineffective_hints({"cb_nodes": "2", "cb_config_list": "*:*"}, in_effect) == {}
    lying = dict(in_effect, romio_aggregator_list="0 ")
    assert ineffective_hints({"cb_nodes": "2"}, lying)["cb_nodes"]["in_effect"] == "1"


def test_cb_nodes_capped_by_ranks_with_star_star() -> None:
    in_effect = dict(CAPPED, cb_nodes="2", cb_config_list="*:*", romio_aggregator_list="0 1 ")
    out = ineffective_hints({"cb_nodes": "4", "cb_config_list": "*:*"}, in_effect)
    assert out["cb_nodes"]["in_effect"] == "2"
    assert "capped" in out["cb_nodes"]["why"]


def test_cb_nodes_without_aggregator_list_falls_back_to_echo() -> None:
    in_effect = {"cb_nodes": "4"}
    assert ineffective_hints({"cb_nodes": "4"}, in_effect) == {}
    assert count_aggregators(in_effect) is None
    assert count_aggregators({"romio_aggregator_list": "0 2 4 6 "}) == 4


def test_striping_on_ufs_is_not_in_effect_even_when_echoed() -> None:
    out = ineffective_hints({"striping_unit": "1048576", "striping_factor": "4"}, CAPPED)
    assert out["striping_unit"]["in_effect"] == "1048576"
    assert "not Lustre" in out["striping_unit"]["why"]
    assert out["striping_factor"]["in_effect"] is None


def test_striping_on_lustre_is_compared() -> None:
    lustre = {"romio_filesystem_type": "LUSTRE:", "striping_factor": "4", "striping_unit": "1048576"}
    assert ineffective_hints({"striping_factor": "4", "striping_unit": "1MiB"}, lustre) == {}
    assert ineffective_hints({"striping_factor": "8"}, lustre)["striping_factor"]["in_effect"] == "4"


def test_enable_disable_words_are_normalised() -> None:
    in_effect = {"romio_cb_write": "enable", "romio_no_indep_rw": "true", "romio_synchronized_flush": "disabled"}
    requested = {"romio_cb_write": "Enabled", "romio_no_indep_rw": "enable", "romio_synchronized_flush": "false"}
    assert ineffective_hints(requested, in_effect) == {}
    out = ineffective_hints({"romio_cb_write": "disable"}, in_effect)
    assert out == {"romio_cb_write": {"requested": "disable", "in_effect": "enable",
                                      "why": "the MPI library set romio_cb_write=enable"}}


def test_sizes_compare_as_integers() -> None:
    assert ineffective_hints({"cb_buffer_size": "16MiB"}, CAPPED) == {}
    assert "cb_buffer_size" in ineffective_hints({"cb_buffer_size": "8m"}, CAPPED)


def test_unknown_key_is_reported_as_missing() -> None:
    out = ineffective_hints({"no_such_hint": "1"}, CAPPED)
    assert out["no_such_hint"]["in_effect"] is None
    assert "not reported" in out["no_such_hint"]["why"]


def test_hint_effect_module_does_not_import_mpi() -> None:
    import subprocess
    import sys

    code = "import sys, autotune.measure._hinteffect; sys.exit('mpi4py' in sys.modules or 'h5py' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0

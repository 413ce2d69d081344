"""Three-state verification of requested settings: an echo is never proof, write counts and loaded components are."""

from __future__ import annotations

from autotune.measure import (
    Evidence,
    PrintedHints,
    effect_of_run,
    effect_of_settings,
    library_of,
    not_in_effect,
    took_effect,
)

MiB = 1 << 20
OMPIO_LOADED = ["fcoll:dynamic", "fcoll:individual", "fcoll:vulcan", "io:ompio", "io:romio321"]


def test_an_echoed_romio_hint_under_ompio_is_never_in_effect() -> None:
    # Open MPI's File.Get_info returns the requested keys: the echo alone must not count as proof
    ev = Evidence("openmpi", {"romio_cb_write": "enable", "cb_nodes": "2"}, False, [8 * MiB, 0, 8 * MiB, 0], True, OMPIO_LOADED)
    out = effect_of_settings({"romio_cb_write": "enable", "cb_nodes": "2"}, {}, ev)
    assert out["romio_cb_write"]["state"] == "not in effect" and "OMPIO" in out["romio_cb_write"]["how"]
    assert out["cb_nodes"]["state"] == "in effect" and "2 of 4 ranks wrote" in out["cb_nodes"]["how"]
    assert took_effect(out) is False
    assert set(not_in_effect(out)) == {"romio_cb_write"}


def test_aggregators_are_proved_by_the_ranks_that_wrote() -> None:
    ev = Evidence("openmpi", {}, False, [16 * MiB, 0, 0, 0], True, ["io:romio321"])
    out = effect_of_settings({"cb_nodes": "2"}, {"io": "romio321"}, ev)
    assert out["cb_nodes"]["state"] == "not in effect" and out["cb_nodes"]["observed"] == 1
    assert out["mca:io"]["state"] == "in effect"
    assert not_in_effect(out)["cb_nodes"]["in_effect"] == "1"


def test_a_few_bytes_of_runtime_traffic_do_not_make_a_writer() -> None:
    # seen here under Open MPI: a non-aggregator rank wrote 32 bytes in the timed region
    ev = Evidence("openmpi", {}, False, [4194376, 0, 4194336, 32], True, OMPIO_LOADED)
    assert ev.writers == 2
    assert effect_of_settings({"cb_nodes": "2"}, {}, ev)["cb_nodes"]["state"] == "in effect"


def test_as_many_aggregators_as_ranks_cannot_be_told_from_no_aggregation() -> None:
    ev = Evidence("openmpi", {}, False, [4 * MiB, 4 * MiB], True, OMPIO_LOADED)
    assert effect_of_settings({"cb_nodes": "2"}, {}, ev)["cb_nodes"]["state"] == "not verifiable"


def test_fcoll_individual_and_the_io_component() -> None:
    ev = Evidence("openmpi", {}, False, [4 * MiB] * 4, True, ["fcoll:individual", "io:ompio", "io:romio321"])
    out = effect_of_settings({}, {"fcoll": "individual", "io_ompio_bytes_per_agg": "8388608", "io": "ompio"}, ev)
    assert out["mca:fcoll"]["state"] == "in effect"
    assert out["mca:io"]["state"] == "in effect"
    assert out["mca:io_ompio_bytes_per_agg"]["state"] == "not verifiable"
    assert took_effect(out) is None
    # OMPIO asked for, but romio321 is what the process loaded
    ev2 = Evidence("openmpi", {}, False, [4 * MiB, 0], True, ["io:romio321"])
    out2 = effect_of_settings({}, {"io": "ompio", "fcoll": "vulcan"}, ev2)
    assert out2["mca:io"]["state"] == "not in effect" and out2["mca:io"]["observed"] == "romio321"
    assert out2["mca:fcoll"]["state"] == "not in effect"


def test_mca_parameters_under_mpich_do_nothing_and_mpich_reports_real_values() -> None:
    reported = {"cb_buffer_size": "4194304", "romio_aggregator_list": "0 ", "cb_nodes": "1",
                "romio_filesystem_type": "UFS: Generic ROMIO driver"}
    ev = Evidence("mpich", reported, True, [8 * MiB, 0], True)
    out = effect_of_settings({"cb_buffer_size": "4MiB", "cb_nodes": "2"}, {"fcoll": "individual"}, ev)
    assert out["cb_buffer_size"]["state"] == "in effect" and "ROMIO's own report" in out["cb_buffer_size"]["how"]
    assert out["cb_nodes"]["state"] == "not in effect"
    assert "cb_config_list=*:*" in out["cb_nodes"]["how"]
    assert out["mca:fcoll"]["state"] == "not in effect"


def test_independent_writes_leave_aggregators_not_verifiable() -> None:
    ev = Evidence("openmpi", {}, False, [4 * MiB, 4 * MiB], False, OMPIO_LOADED)
    assert effect_of_settings({"cb_nodes": "1"}, {}, ev)["cb_nodes"]["state"] == "not verifiable"


def test_a_command_without_printed_hints_is_not_verifiable() -> None:
    out = effect_of_run({"cb_nodes": "2"}, {"io_ompio_num_aggregators": "2"}, "openmpi", None, PrintedHints())
    assert out["mca:io_ompio_num_aggregators"]["state"] == "not verifiable"
    # a command's hints go into a ROMIO_HINTS file: under OMPIO they never reach the program
    assert out["cb_nodes"]["state"] == "not passed" and "OMPIO never reads" in out["cb_nodes"]["how"]
    assert took_effect(out) is False and "cb_nodes" in not_in_effect(out)
    launched = effect_of_run({"cb_nodes": "2"}, {}, "openmpi", None, PrintedHints(), io_default="romio321")
    assert launched["cb_nodes"]["state"] == "not verifiable"  # romio321 chosen by the launch reads the file
    printed = effect_of_run({"cb_nodes": "2"}, {"io": "romio321"}, "openmpi", None,
                            PrintedHints({"cb_nodes": "1", "romio_aggregator_list": "0 "}, 1))
    assert printed["cb_nodes"]["state"] == "not in effect"  # ROMIO_PRINT_HINTS under romio321: real values


def test_library_names() -> None:
    assert library_of("Open MPI v4.1.4, package: Debian OpenMPI") == "openmpi"
    assert library_of("MPICH Version:\t4.0.2") == "mpich"
    assert library_of("MPI VERSION    : CRAY MPICH version 8.1.4") == "cray-mpich"
    assert library_of("Intel(R) MPI Library 2021.6") == "intel-mpi"
    assert library_of("MVAPICH2 Version 2.3.7") == "mvapich"

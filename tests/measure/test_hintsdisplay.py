"""Parsing the hints MPICH prints at file open (ROMIO_PRINT_HINTS=1, Cray MPICH_MPIIO_HINTS_DISPLAY=1)."""

from __future__ import annotations

from autotune.measure import (
    ineffective_hints,
    judge_printed,
    parse_hints_blocks,
    parse_hints_display,
    strip_hints_display,
)

# What MPICH 4.0.2 printed here (experiments/campaigns/my-app with cb_nodes 2, cb_config_list *:*; 4 ranks): ROMIO's
# "key = %-25s value = %-10s" lines (values padded with trailing blanks), then the program's own lines.
_PRINTED = [("cb_buffer_size", "16777216"), ("romio_cb_read", "automatic"), ("romio_cb_write", "enable"),
            ("cb_nodes", "2"), ("romio_no_indep_rw", "false"), ("romio_ds_write", "automatic"),
            ("cb_config_list", "*:*"),
            ("romio_filesystem_type", "UFS: Generic ROMIO driver for all UNIX-like file systems"),
            ("romio_aggregator_list", "0 1 ")]
ROMIO = "".join(f"key = {k:<25} value = {v:<10}\n" for k, v in _PRINTED) + \
    "wrote 4.0 MiB in 0.216 s\nbandwidth: 18.53 MiB/s\n"

CRAY = """PE 0: MPIIO hints for /lus/scratch/out.0001:
          cb_buffer_size           = 16777216
          romio_cb_write           = enable
          cb_nodes                 = 48
          striping_factor          = 48
          striping_unit            = 1048576
          cray_cb_write_lock_mode  = 1
PE 0: MPIIO hints for /lus/scratch/out.0002:
          cb_nodes                 = 24
          striping_factor          = 24
application done
"""


def test_romio_block_as_mpich_prints_it() -> None:
    hints = parse_hints_display(ROMIO)
    assert hints["cb_nodes"] == "2" and hints["cb_config_list"] == "*:*"
    assert hints["romio_filesystem_type"] == "UFS: Generic ROMIO driver for all UNIX-like file systems"
    assert hints["romio_aggregator_list"] == "0 1"
    assert "bandwidth" not in hints


def _self_open() -> str:
    """The block ROMIO prints for a reopen on MPI_COMM_SELF (one rank: cb_nodes 1, one aggregator)."""
    return ROMIO.replace("value = 2  ", "value = 1  ").replace("value = 0 1 ", "value = 0   ")


def test_the_widest_open_is_judged_not_the_last() -> None:
    # upstream IOR: one collective open, then reopens on MPI_COMM_SELF (each rank prints its own block)
    text = ROMIO + _self_open() * 12
    blocks = parse_hints_blocks(text)
    assert len(blocks) == 13 and blocks[0]["format"] == "romio"
    judged = judge_printed(text)
    assert judged.hints["cb_nodes"] == "2" and judged.hints["romio_aggregator_list"] == "0 1"
    assert judged.opens == 13 and "widest of 13 opens" in judged.judged and "0 1" in judged.judged
    assert judge_printed(_self_open() * 3 + ROMIO).hints["cb_nodes"] == "2"  # order does not matter
    assert ineffective_hints({"cb_nodes": "2"}, judged.hints) == {}


def test_opens_that_cannot_be_told_apart_judge_only_what_they_agree_on() -> None:
    one = ROMIO.replace("value = 0 1 ", "value = 0   ")
    text = one.replace("value = enable", "value = disable") + one
    judged = judge_printed(text)
    assert "romio_cb_write" not in judged.hints and judged.disagree["romio_cb_write"] == ["disable", "enable"]
    assert judged.hints["cb_buffer_size"] == "16777216" and "cannot tell" in judged.judged
    assert judge_printed(ROMIO).judged == ""  # one open: nothing to say


def test_cray_blocks_name_their_file() -> None:
    blocks = parse_hints_blocks(CRAY)
    assert [b["file"] for b in blocks] == ["/lus/scratch/out.0001", "/lus/scratch/out.0002"]
    assert blocks[0]["hints"]["cray_cb_write_lock_mode"] == "1"
    judged = judge_printed(CRAY)  # no aggregator list: only what both opens agree on
    assert judged.disagree == {"cb_nodes": ["48", "24"], "striping_factor": ["48", "24"]}
    assert judged.hints["cray_cb_write_lock_mode"] == "1"


def test_requested_hints_not_in_effect_are_flagged() -> None:
    requested = {"cb_nodes": "4", "romio_cb_write": "enable", "bogus_key": "7"}
    out = ineffective_hints(requested, parse_hints_display(ROMIO))
    assert set(out) == {"cb_nodes", "bogus_key"}
    assert out["cb_nodes"]["in_effect"] == "2"


def test_no_hints_printed_gives_nothing_and_strip_keeps_the_program_lines() -> None:
    assert parse_hints_display("bandwidth: 3 MiB/s\nkey = value\n") == {}
    assert strip_hints_display(ROMIO).splitlines() == ["wrote 4.0 MiB in 0.216 s", "bandwidth: 18.53 MiB/s"]


def test_interleaved_ranks_still_count_their_opens() -> None:
    # Open MPI forwards the ranks' lines as they come: two one-rank reopens printed at once interleave line by line
    self_lines = _self_open().splitlines()[:9]
    mixed = "\n".join(line for pair in zip(self_lines, self_lines, strict=True) for line in pair)
    judged = judge_printed(ROMIO + mixed + "\n")
    assert judged.opens == 3 and judged.hints["cb_nodes"] == "2" and "widest of 3 opens" in judged.judged

"""Parsing the hints MPICH prints at file open (ROMIO_PRINT_HINTS=1, Cray MPICH_MPIIO_HINTS_DISPLAY=1)."""

from __future__ import annotations

from autotune.measure import parse_hints_blocks, parse_hints_display, strip_hints_display, verify_hints

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


def test_romio_blocks_per_open_and_the_last_wins() -> None:
    text = ROMIO + ROMIO.replace("value = 2  ", "value = 4  ")
    blocks = parse_hints_blocks(text)
    assert len(blocks) == 2 and blocks[0]["format"] == "romio"
    assert parse_hints_display(text)["cb_nodes"] == "4"


def test_cray_blocks_name_their_file() -> None:
    blocks = parse_hints_blocks(CRAY)
    assert [b["file"] for b in blocks] == ["/lus/scratch/out.0001", "/lus/scratch/out.0002"]
    assert blocks[0]["hints"]["cray_cb_write_lock_mode"] == "1"
    assert parse_hints_display(CRAY) == {"cb_nodes": "24", "striping_factor": "24"}


def test_requested_hints_not_in_effect_are_flagged() -> None:
    requested = {"cb_nodes": "4", "romio_cb_write": "enable", "bogus_key": "7"}
    out = verify_hints(requested, parse_hints_display(ROMIO))
    assert set(out) == {"cb_nodes", "bogus_key"}
    assert out["cb_nodes"]["in_effect"] == "2"


def test_no_hints_printed_gives_nothing_and_strip_keeps_the_program_lines() -> None:
    assert parse_hints_display("bandwidth: 3 MiB/s\nkey = value\n") == {}
    assert strip_hints_display(ROMIO).splitlines() == ["wrote 4.0 MiB in 0.216 s", "bandwidth: 18.53 MiB/s"]

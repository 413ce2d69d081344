"""The MPICH_MPIIO_STATS / MPICH_MPIIO_TIMERS parser on the cited sources' sample reports (000, 001)."""

from __future__ import annotations

from autotune.measure._craystats import parse_mpiio_stats, parse_sections

# ALCF Theta I/O talk: IOR with MPICH_MPIIO_STATS=1 and MPICH_MPIIO_TIMERS=1 (markdown escapes as extracted)
IOR = r"""
+-----+
| MPIIO write access patterns for testFile
| independent writes    = 0
| collective writes   = 4096
| independent writers   = 0
| aggregators        = 48
| stripe count       = 48
| stripe size           = 1048576
| system writes      = 4096
| stripe sized writes = 4096
| aggregators active    = 0,0,0,4096 (1, <= 24, > 24, 48)
| total bytes for writes = 4294967296 = 4096 MiB = 4 GiB
| ave system write size = 1048576
| read-modify-write count = 0
| read-modify-write bytes = 0
| number of write gaps   = 0
| ave write gap size     = NA
+-----+

| MPIIO write by phases, all ranks, for testFile

| number of ranks writing = 48

| number of ranks not writing = 4048

| time scale: 1 = 2\*\*1 clock ticks min max ave

|
| -----
| total = 515639319

| imbalance = 70473 4113200 4038142 0%

| open/close/trunc = 20449942 21682440 20547164 3%

| data send (\*) = 6250725 403979537 205475108 39%

| file write = 0 235316380 226898464 44%

| data send BW (MiB/s) = 12967.254

| **raw write BW (MiB/s) = 11742.909**

| **net write BW (MiB/s) = 5167.271**

| (\*) send and write overlap when number ranks != number of writers

+-----+
"""

# KAUST Shaheen II training: WRF on one DataWarp node, a read box and a write box, then the app's own timing line
WRF = """
+--------------------------------------------------------+
| MPIIO read access patterns for wrfinput_d01
| independent reads = 1
| collective reads = 527360
| aggregators = 4
| stripe count = 1
| stripe size = 8388608
| system reads = 762
| stripe sized reads = 108
| total bytes for reads = 2930104643 = 2794 MiB = 2 GiB
+--------------------------------------------------------+
Timing for processing wrfinput file (stream 0) for domain 1: 13.19130 elapsed seconds
+--------------------------------------------------------+
| MPIIO write access patterns for wrfout_d01_2007-04-03_00_00_00
| independent writes = 2
| collective writes = 552960
| independent writers = 1
| aggregators = 8
| stripe count = 1
| stripe size = 1048576
| system writes = 3338
| stripe sized writes = 2606
| total bytes for writes = 3045341799 = 2904 MiB = 2 GiB
| ave system write size = 912325
| read-modify-write count = 0
| read-modify-write bytes = 0
| number of write gaps = 2
| ave write gap size = 524284
+--------------------------------------------------------+
Timing for Writing wrfout_d01_2007-04-03_00_00_00 for domain 1: 9.09640 elapsed seconds
"""


def test_ior_stats_and_timers() -> None:
    res = parse_mpiio_stats(IOR)
    write = res["files"]["testFile"]["write"]
    assert write["aggregators"] == 48 and write["stripe_count"] == 48 and write["stripe_size"] == 1048576
    assert write["system_writes"] == 4096 and write["stripe_sized_writes"] == 4096
    assert write["read_modify_write_count"] == 0 and write["read_modify_write_bytes"] == 0
    assert write["total_bytes_for_writes"] == 4294967296
    assert write["ave_write_gap_size"] is None
    assert write["aggregators_active"].startswith("0,0,0,4096")
    timers = res["files"]["testFile"]["write_timers"]
    assert timers["number_of_ranks_writing"] == 48
    assert timers["imbalance"] == {"min": 70473.0, "max": 4113200.0, "ave": 4038142.0, "pct": 0.0}
    assert timers["open_close_trunc"]["pct"] == 3.0
    assert timers["data_send"]["pct"] == 39.0
    assert "time_scale_1" not in timers and not any(k.startswith("send_and_write") for k in timers)
    summary = res["summary"]
    assert summary["raw_write_bw_mib_s"] == 11742.909 and summary["net_write_bw_mib_s"] == 5167.271
    assert summary["stripe_sized_write_fraction"] == 1.0


def test_wrf_read_and_write_boxes() -> None:
    sections = parse_sections(WRF)
    assert [(s["kind"], s["op"], s["file"]) for s in sections] == [
        ("access", "read", "wrfinput_d01"), ("access", "write", "wrfout_d01_2007-04-03_00_00_00")]
    summary = parse_mpiio_stats(WRF)["summary"]
    assert summary["aggregators"] == 8
    assert summary["system_writes"] == 3338 and summary["stripe_sized_writes"] == 2606
    assert summary["system_reads"] == 762 and summary["stripe_sized_reads"] == 108
    assert summary["stripe_sized_write_fraction"] == round(2606 / 3338, 4)  # "78% of the writes are striped"


def test_no_report_is_empty() -> None:
    assert parse_mpiio_stats("hello\n| x = 1\nrank 0 done\n") == {}
    assert parse_mpiio_stats("") == {}

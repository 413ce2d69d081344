"""``extractor: darshan`` on real logs placed where a run would leave them (the runtime cannot run here)."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autotune.launch import RunResult
from autotune.measure import get_extractor, log_metrics

darshan = pytest.importorskip("darshan", reason="PyDarshan is the 'darshan' extra: pip install 'autotune[darshan]'")
PACKAGE = Path(os.path.dirname(darshan.__file__))  # the real logs PyDarshan ships

IOR_HDF5 = PACKAGE / "examples" / "example_logs" / "ior_hdf5_example.darshan"
VPIC = PACKAGE / "tests" / "input" / "sample.darshan"
GOODOST = PACKAGE / "tests" / "input" / "sample-goodost.darshan"
READ_AB = next((PACKAGE / "examples" / "darshan-graph").glob("pq_app_readAB_writeC_id71326*.darshan"))   # format 3.21


def run_left(tmp_path: Path, log: Path, name: str = "app.darshan") -> RunResult:
    """A finished repetition whose run directory holds ``log`` as the Darshan runtime would write it."""
    shutil.copy(log, tmp_path / name)
    res = RunResult(0, stdout="nothing useful\n", wall_seconds=3.0)
    res.info["run_dir"] = str(tmp_path)
    return res


def darshan_own(log: Path, module: str) -> tuple[float, float]:
    from darshan.backend.cffi_backend import accumulate_records

    report = darshan.DarshanReport(str(log), read_all=False)
    report.mod_read_all_records(module, warnings=False)
    acc = accumulate_records(report.records[module].to_df(), module, report.metadata["job"]["nprocs"])
    return float(acc.derived_metrics.agg_perf_by_slowest), float(acc.derived_metrics.agg_time_by_slowest)


@pytest.mark.parametrize(("log", "module"), [(VPIC, "MPI-IO"), (GOODOST, "POSIX"), (IOR_HDF5, "MPI-IO")])
def test_bandwidth_is_darshans_own(tmp_path: Path, log: Path, module: str) -> None:
    res = run_left(tmp_path, log)
    ext = get_extractor("darshan")
    m = ext.extract(res, "bandwidth_mib_s")
    perf, secs = darshan_own(log, module)
    assert m.error is None
    assert m.value == pytest.approx(perf)
    assert m.metrics["io_seconds"] == pytest.approx(secs)
    assert m.record == {"darshan_log": str(tmp_path / "app.darshan")}


def test_write_bandwidth_is_bytes_over_the_write_span(tmp_path: Path) -> None:
    report = darshan.DarshanReport(str(VPIC), read_all=False)
    report.mod_read_all_records("MPI-IO", warnings=False)
    frames = report.records["MPI-IO"].to_df()
    span = float(frames["fcounters"]["MPIIO_F_WRITE_END_TIMESTAMP"].max()
                 - frames["fcounters"]["MPIIO_F_WRITE_START_TIMESTAMP"].min())
    written = float(frames["counters"]["MPIIO_BYTES_WRITTEN"].sum())
    m = get_extractor("darshan").extract(run_left(tmp_path, VPIC), "write_bandwidth_mib_s")
    assert m.value == pytest.approx(written / 2**20 / span)
    assert m.metrics["write_seconds"] == pytest.approx(span)
    assert m.metrics["bytes_written"] == written


def test_no_log_is_a_failed_measurement(tmp_path: Path) -> None:
    res = RunResult(0, wall_seconds=1.0)
    res.info["run_dir"] = str(tmp_path)
    m = get_extractor("darshan").extract(res, "bandwidth_mib_s")
    assert m.value is None and "DARSHAN_LOGFILE" in (m.error or "")


def test_a_log_older_than_the_run_is_not_this_runs(tmp_path: Path) -> None:
    res = run_left(tmp_path, IOR_HDF5)
    old = time.time() - 3600
    os.utime(tmp_path / "app.darshan", (old, old))
    assert get_extractor("darshan").extract(res, "bandwidth_mib_s").value is None


def test_truncated_or_foreign_log_is_a_failed_measurement(tmp_path: Path) -> None:
    res = RunResult(0, wall_seconds=1.0)
    res.info["run_dir"] = str(tmp_path)
    (tmp_path / "app.darshan").write_bytes(IOR_HDF5.read_bytes()[:2000])
    m = get_extractor("darshan").extract(res, "bandwidth_mib_s")
    assert m.value is None and "truncated" in (m.error or "")
    (tmp_path / "app.darshan").write_text("not a log")
    m = get_extractor("darshan").extract(res, "bandwidth_mib_s")
    assert m.value is None and "not a Darshan log" in (m.error or "")


def test_partial_logs_are_skipped_and_a_glob_is_honoured(tmp_path: Path) -> None:
    (tmp_path / "logs").mkdir()
    res = run_left(tmp_path / "logs", GOODOST, "me_ior_id1.darshan")
    shutil.copy(IOR_HDF5, tmp_path / "logs" / "me_ior_id2.darshan_partial")
    res.info["run_dir"] = str(tmp_path)
    m = get_extractor("darshan", {"logs": "{run_dir}/logs/*"}).extract(res, "write_bandwidth_mib_s")
    assert m.record == {"darshan_log": str(tmp_path / "logs" / "me_ior_id1.darshan")}


def test_log_without_data_is_an_error() -> None:
    with pytest.raises(ValueError, match="no POSIX or MPI-IO bytes"):
        log_metrics(PACKAGE / "tests" / "input" / "noposix.darshan")


def test_missing_metric_names_the_ones_there(tmp_path: Path) -> None:
    m = get_extractor("darshan").extract(run_left(tmp_path, GOODOST), "read_bandwidth_mib_s")
    assert m.value is None and "write_bandwidth_mib_s" in (m.error or "")


def test_a_log_that_crashes_libdarshan_util_is_a_failed_measurement(tmp_path: Path) -> None:
    """Regression: libdarshan-util aborted the process (SIGABRT or SIGSEGV) reading a log whose name records are
    damaged: the campaign itself died. The read now runs in a child process, and a crash or what
    libdarshan-util could not read fails the measurement. Run in a fresh interpreter, as a campaign would, so
    that the old behaviour fails this test instead of killing pytest."""
    data = bytearray(READ_AB.read_bytes())
    names = struct.unpack("<Q", data[24:32])[0]   # the first region map: the name records (darshan-log-format.h)
    data[names] ^= 0xFF
    log = tmp_path / "app.darshan"
    log.write_bytes(bytes(data))
    script = ("import sys\nfrom autotune.measure import log_metrics\ntry:\n    log_metrics(sys.argv[1])\n"
              "except ValueError as exc:\n    print(exc)\n")
    done = subprocess.run([sys.executable, "-c", script, str(log)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    said = done.stdout.strip()   # libdarshan-util reads freed memory here: it crashes in the read or after it
    assert "\n" not in said and said.endswith("): the log is damaged"), said
    assert said.startswith(("app.darshan: PyDarshan could not read all of it (libdarshan-util: unable to inflate",
                            "app.darshan: libdarshan-util failed reading it (killed by SIG")), said
    assert "unable to inflate darshan log data" in said
    assert done.stderr == ""


def test_a_read_that_does_not_end_is_given_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: the extractor read in the campaign's process with no deadline (a damaged log that keeps
    libdarshan-util busy held the campaign)."""
    import autotune.measure._darshan as module
    import autotune.measure._darshanfile as reader

    monkeypatch.setattr(reader, "DEADLINE_BASE", 1.0)
    monkeypatch.setattr(reader, "DEADLINE_PER_MIB", 0.0)
    monkeypatch.setattr(module, "_metrics", lambda _p: time.sleep(600))
    start = time.monotonic()
    with pytest.raises(ValueError, match=r"ior_hdf5_example.darshan: libdarshan-util failed reading it \(no answer "
                                         r"within 1 s\): the log is damaged"):
        log_metrics(IOR_HDF5)
    assert time.monotonic() - start < 30

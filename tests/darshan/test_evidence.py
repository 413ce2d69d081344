"""Drafts from the log's own evidence: the file system of each file (LUSTRE records, DataWarp paths, symbolic
links resolved), the application's data files (never the interpreter's), the job's striping as the baseline.

The public darshan-logs collection's cases (E3SM-IO on Theta, an h5py job) are not installable here, so they
are built from a shipped log's records with the names, mounts and striping those logs hold (``_log_as``)."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml

from autotune.darshan import JobLog, campaign_from_log, read_log
from autotune.darshan._where import is_data, locate
from autotune.errors import ConfigError

from .conftest import IN_DATA, PACKAGE

VPIC = PACKAGE / "tests" / "input" / "sample.darshan"           # one shared file, MPI-IO + LUSTRE records
READ_AB_WRITE_C = next((PACKAGE / "examples" / "darshan-graph").glob("pq_app_readAB_writeC_*.darshan"))
E3SM_OUT = "/projects/radix-io/snyder/e3sm/can_I_out_h0.nc"
# E3SM-IO's command line in the darshan-logs collection (e3sm_io_heatmaps_and_dxt/README.md)
E3SM_EXE = ("/home/snyder/e3sm_io /projects/radix-io/E3SM-IO-inputs/i_case_1344p.nc -k -o "
            "/projects/radix-io/snyder/e3sm/can_I_out.nc -a pnetcdf -x canonical -r 300")
THETA_MOUNTS = [("/", "overlay"), ("/lus/theta-fs0", "lustre"), ("/opt/cray/pe", "dvs")]


def _log_as(monkeypatch: pytest.MonkeyPatch, log: JobLog) -> None:
    import autotune.darshan._campaign as campaign

    monkeypatch.setattr(campaign, "read_log", lambda _p, require_data=True: log)


def _e3sm(mounts: list[tuple[str, str]] = THETA_MOUNTS) -> JobLog:
    """VPIC's records as E3SM-IO's on Theta: 512 ranks, PnetCDF, /projects (a symbolic link to
    /lus/theta-fs0/projects) with 56 stripes of 1 MiB in its LUSTRE record, the overlay at / and Lustre mounted."""
    real = read_log(VPIC)
    fid = next(i for i, n in real.names.items() if n.endswith("vpicio.hdf5"))
    lustre = real.lustre.copy()
    lustre["LUSTRE_COMP_STRIPE_COUNT"] = 56
    lustre["LUSTRE_COMP_STRIPE_SIZE"] = 1 << 20
    nc = pd.DataFrame({"id": [fid], "rank": [-1], "name": [E3SM_OUT]})
    return replace(real, names={**real.names, fid: E3SM_OUT}, lustre=lustre, nprocs=512, exe=E3SM_EXE,
                   frames={**real.frames, "PNETCDF_FILE": nc}, mounts=mounts)


@pytest.mark.parametrize("system", [None, "theta"])
def test_a_symlinked_lustre_path_is_on_lustre_with_the_jobs_striping(system: str | None,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    _log_as(monkeypatch, _e3sm())
    init = campaign_from_log(VPIC, system=system)
    main = init.derived.matter[0]
    assert (main.fs_type, main.mount, main.real) == ("lustre", "/lus/theta-fs0", "/lus/theta-fs0" + E3SM_OUT)
    assert init.target.system.name == "theta" and init.target.fs.name == "projects" and init.target.kind == "lustre"
    assert not any("overlay" in n or "out of reach" in n for n in init.notes), init.notes
    data = yaml.safe_load(init.text)
    assert data["baseline"] == {"lustre.stripe_count": 56, "lustre.stripe_size": "1MiB"}
    assert data["space"] == "lustre-cray" and init.derived.pattern["library"] == "pnetcdf"


def test_the_output_argument_moves_under_the_data_directory(monkeypatch: pytest.MonkeyPatch) -> None:
    _log_as(monkeypatch, _e3sm())
    data = yaml.safe_load(campaign_from_log(VPIC).text)
    cmd = data["app"]["command"]
    assert cmd[cmd.index("-o") + 1] == "{data_dir}/can_I_out.nc"   # E3SM-IO writes can_I_out_h0.nc from it
    assert "/projects/radix-io/E3SM-IO-inputs/i_case_1344p.nc" in cmd   # the input is read, not moved
    assert data["app"]["hint_files"] == ["can_I_out_h0.nc"]
    assert data["target"]["path"] == "/projects/radix-io/snyder/e3sm/autotune-data"   # beside the job's files


def test_a_lustre_record_outside_every_known_mount_is_drafted_as_lustre(monkeypatch: pytest.MonkeyPatch) -> None:
    """No profile knows /lus/other: the LUSTRE record and the log's one Lustre mount decide, not the overlay at /."""
    _log_as(monkeypatch, _e3sm([("/", "overlay"), ("/lus/other", "lustre")]))
    init = campaign_from_log(VPIC)
    assert init.target.draft is not None and init.target.kind == "lustre" and init.target.fs.path == "/lus/other"
    assert "kind: lustre  # from the log: a LUSTRE module record of it or its folder; no mount in the table holds" \
        in init.target.draft.text
    assert init.target.fs.osts == 56 and yaml.safe_load(init.text)["baseline"]["lustre.stripe_count"] == 56


def test_datawarp_and_lustre_evidence_come_before_the_mount_table() -> None:
    log = replace(read_log(VPIC), mounts=[("/", "overlay"), ("/lus/theta-fs0", "lustre")])
    dw = "/var/opt/cray/dws/mounts/batch/77_striped_scratch/out.h5"
    assert locate(log, dw, False)[:2] == ("/var/opt/cray/dws/mounts/batch/77_striped_scratch", "dvs")
    assert locate(log, "/home/u/x", False)[:2] == ("/", "overlay")        # no evidence: the mount table
    assert locate(log, "/home/u/x", True)[:2] == ("/lus/theta-fs0", "lustre")   # a LUSTRE record
    assert locate(log, "/projects/p/x", False, ["/lus/theta-fs0/projects"])[2] == "/lus/theta-fs0/projects/p/x"


def test_a_file_without_a_lustre_record_beside_one_that_has_it_is_on_lustre(monkeypatch: pytest.MonkeyPatch) -> None:
    """Darshan's Lustre module keeps a bounded number of records: a folder is on one file system."""
    real = _e3sm([("/", "overlay"), ("/lus/other", "lustre")])
    lustre = real.lustre.copy()
    lustre["id"] = 1234567   # the LUSTRE record is now of can_I_out_h1.nc, a file of the same folder
    log = replace(real, lustre=lustre, names={**real.names, 1234567: "/projects/radix-io/snyder/e3sm/can_I_out_h1.nc"})
    from autotune.darshan import file_figures

    (h0,) = file_figures(log)
    assert h0.name == E3SM_OUT and (h0.fs_type, h0.mount) == ("lustre", "/lus/other")
    (alone,) = file_figures(replace(log, names={**log.names, 1234567: "/elsewhere/x.nc"}))
    assert (alone.fs_type, alone.mount) == ("overlay", "/")   # no evidence: the mount table


def _h5py(names: dict[str, str]) -> JobLog:
    """readAB_writeC's records (A and B read through POSIX, C written through MPI-IO) renamed: an h5py job
    whose largest reads are the interpreter's files and whose data is test_0.h5 (an H5F record)."""
    real = read_log(READ_AB_WRITE_C)
    renamed = {i: next((new for old, new in names.items() if n.endswith("/" + old)), n) for i, n in real.names.items()}
    h5 = [i for i, n in renamed.items() if n.endswith(".h5")]
    h5f = pd.DataFrame({"id": h5, "rank": [0] * len(h5), "name": [renamed[i] for i in h5]})
    return replace(real, names=renamed, frames={**real.frames, "H5F": h5f})


def test_interpreter_files_are_never_the_main_files(monkeypatch: pytest.MonkeyPatch) -> None:
    _log_as(monkeypatch, _h5py({
        "A": "/home/u/env/lib/python3.11/site-packages/h5py/__pycache__/_conv.cpython-311.pyc",
        "B": "/home/u/env/lib/python3.11/site-packages/numpy/core/_multiarray_umath.cpython-311-x86_64-linux-gnu.so",
        "C": "/home/u/run/test_0.h5"}))
    init = campaign_from_log(VPIC, command=IN_DATA)
    d = init.derived
    assert [f.name for f in d.matter] == ["/home/u/run/test_0.h5"] and d.pattern["library"] == "hdf5"
    assert d.main_op == "write" and d.pattern["phases"] == ["write"] and d.bytes_by_phase["read"] == 0
    data = yaml.safe_load(init.text)
    assert data["app"]["hint_files"] == ["test_0.h5"] and data["objective"]["metric"] == "write_bandwidth_mib_s"


def test_a_job_with_only_code_files_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    _log_as(monkeypatch, _h5py({"A": "/usr/lib/python3/a.pyc", "B": "/etc/b.conf", "C": "/opt/x/lib/test_0.h5.so"}))
    with pytest.raises(ConfigError, match="only code, library and system files") as err:
        campaign_from_log(VPIC, command=IN_DATA)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize(("name", "data"), [
    ("/home/u/env/lib/python3.11/site-packages/h5py/_conv.cpython-311-x86_64-linux-gnu.so", False),
    ("/home/u/run/__pycache__/job.cpython-311.pyc", False), ("/home/u/run/job.py", False),
    ("/usr/lib64/libhdf5.so.200.1.0", False), ("/proc/self/maps", False), ("/sys/devices/x", False),
    ("/etc/passwd", False), ("/tmp/ompi.nid01.1000/pid.7/1/x.sm", False),
    ("/home/u/run/test_0.h5", True), ("/lus/theta-fs0/projects/p/out.nc", True), ("/scratch/u/ior.out.00000001", True),
])
def test_what_is_the_applications_data(name: str, data: bool) -> None:
    assert is_data(name) is data


def test_a_phase_without_a_histogram_at_its_layer_says_what_it_has(monkeypatch: pytest.MonkeyPatch) -> None:
    """readAB_writeC reads A and B through POSIX but writes C through MPI-IO: the read size is POSIX's."""
    init = campaign_from_log(READ_AB_WRITE_C, command=IN_DATA)
    size, where = init.derived.sizes["read"]
    assert 100 <= size < 1024 and where == "100_1K"   # POSIX_SIZE_READ_100_1K of A and B
    assert "histogram bin )" not in init.text and "dominant transfer 0B" not in init.text
    real = read_log(READ_AB_WRITE_C)
    posix = real.frames["POSIX"].copy()
    for col in [c for c in posix.columns if c.startswith(("POSIX_SIZE_READ_", "POSIX_ACCESS"))]:
        posix[col] = 0
    _log_as(monkeypatch, replace(real, frames={**real.frames, "POSIX": posix}))
    text = campaign_from_log(READ_AB_WRITE_C, command=IN_DATA).text
    reads = next(ln for ln in text.splitlines() if ln.startswith("#   read:"))
    assert "no access-size histogram for this phase" in reads and "bin )" not in reads, reads


def _truth(path: Path) -> dict[str, Any]:
    """The main file's MPI-IO bytes written and write span, straight from PyDarshan."""
    from .conftest import darshan

    report = darshan.DarshanReport(str(path), read_all=False)
    report.mod_read_all_records("MPI-IO", warnings=False)
    frames = report.records["MPI-IO"].to_df()
    c, f = frames["counters"], frames["fcounters"]
    start = f["MPIIO_F_WRITE_START_TIMESTAMP"]
    span = float(f["MPIIO_F_WRITE_END_TIMESTAMP"].max() - start[start > 0].min())
    return {"mib_s": float(c["MPIIO_BYTES_WRITTEN"].clip(lower=0).sum()) / 2**20 / span}


def test_the_logs_bandwidth_is_shown_beside_the_models(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from autotune.cli import main

    init = campaign_from_log(VPIC, system="cori")
    measured = _truth(VPIC)["mib_s"]
    assert f"log measured {measured:.0f} MiB/s (write, main files); the model predicts " in init.compared
    assert "for the default" in init.compared and f"measured vs model: {init.compared}" in init.text
    predicted = [float(x) for x in re.findall(r"(\d+) MiB/s", init.compared.split("the model predicts ")[1])]
    own = predicted[-1]   # the job's own settings when they differ from the default, else the default
    ratio = max(measured, own) / min(measured, own)
    assert ("disagree by" in init.compared) == (ratio > 2) and (f"{ratio:.1f}x" in init.compared or ratio <= 2)
    assert main(["init", "--from-darshan", str(VPIC), "--system", "cori", "-o", str(tmp_path / "c.yaml")]) == 0
    assert f"measured vs model: {init.compared}" in capsys.readouterr().out

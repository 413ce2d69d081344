"""The real Darshan logs shipped inside PyDarshan, and Darshan's own figures for them."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

darshan = pytest.importorskip("darshan", reason="PyDarshan is the 'darshan' extra: pip install 'autotune[darshan]'")

PACKAGE = Path(os.path.dirname(darshan.__file__))
LOG_DIRS = [PACKAGE / "examples", PACKAGE / "tests" / "input"]
PSEUDO = ("<STDIN>", "<STDOUT>", "<STDERR>")
# A command that writes under the trial's data directory: for logs whose own command line names no output path
# (init refuses to draft a command that would write over the job's output).
IN_DATA = ["./app", "{data_dir}/out"]


def shipped_logs() -> list[Path]:
    """Every .darshan file under PyDarshan's example and test-input folders (not a hand-picked list)."""
    return sorted({p for d in LOG_DIRS for p in d.rglob("*.darshan")})


def log_id(path: Path) -> str:
    return f"{path.parent.name}/{path.name[:40]}"


def darshan_figures(path: Path) -> dict[str, Any]:
    """What PyDarshan itself reports for a log, computed here straight from its records.

    Per file, the bytes of the layer the app called (MPI-IO when it has bytes for the file, else POSIX);
    per phase the totals; the ranks of the largest file; the MPI-IO operation counts; module names."""
    report = darshan.DarshanReport(str(path), read_all=False)
    figures: dict[str, Any] = {"nprocs": report.metadata["job"]["nprocs"], "modules": list(report.modules)}
    per_file: dict[int, dict[str, Any]] = {}
    for mod in ("POSIX", "MPI-IO"):
        if mod not in report.modules:
            continue
        report.mod_read_all_records(mod, warnings=False)
        if mod not in report.records or not len(report.records[mod]):
            continue
        df = report.records[mod].to_df()["counters"]
        pre = mod.replace("-", "")
        for fid, rows in df.groupby("id"):
            name = report.name_records.get(fid, "")
            if name in PSEUDO:
                continue
            w, r = int(rows[f"{pre}_BYTES_WRITTEN"].clip(lower=0).sum()), int(rows[f"{pre}_BYTES_READ"].clip(lower=0).sum())
            entry = per_file.setdefault(int(fid), {"name": name, "ranks": set()})
            entry["ranks"] |= set(int(x) for x in rows["rank"])
            if mod == "POSIX" or w + r > 0:
                entry.update(written=w, read=r)
            if mod == "MPI-IO":
                for k in ("COLL_WRITES", "COLL_READS", "INDEP_WRITES", "INDEP_READS"):
                    entry[k] = int(rows[f"MPIIO_{k}"].clip(lower=0).sum())
            if mod == "MPI-IO" and w + r > 0:
                entry["library"] = True
    for mod in ("H5F", "PNETCDF_FILE"):
        if mod in report.modules:
            report.mod_read_all_records(mod, warnings=False)
            names = {report.name_records.get(i, "") for i in report.records[mod].to_df()["counters"]["id"]}
            for entry in per_file.values():
                entry["library"] = entry.get("library", False) or entry["name"] in names
    files = [f for f in per_file.values() if f.get("written", 0) + f.get("read", 0) > 0]
    files.sort(key=lambda f: -(f["written"] + f["read"]))
    figures["files"] = files
    data = [f for f in files if not _not_data(f["name"])]   # what the application read and wrote itself
    figures["written"] = sum(f["written"] for f in data)
    figures["read"] = sum(f["read"] for f in data)
    pool = [f for f in data if f.get("library")] or data   # the main files: those an I/O library touched first
    figures["pool_written"] = sum(f["written"] for f in pool)
    figures["pool_read"] = sum(f["read"] for f in pool)
    return figures


def _not_data(name: str) -> bool:
    """Interpreter, library and system files, and Open MPI's session files: never the application's data."""
    return (name.endswith((".pyc", ".py", ".so", ".jar")) or ".so." in name or "site-packages" in name
            or name.startswith(("/proc/", "/sys/", "/etc/", "/usr/")) or "/ompi." in name)


def dry_run_here(campaign: Path, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``tune --dry-run`` of a drafted campaign on this host: it runs, or, for a Cray site's draft (mpiexec here is
    MPICH's, not Cray's), it refuses exactly where ``tune`` would: the Cray-only hints, in one line naming what was
    detected here."""
    from autotune.cli import main

    capsys.readouterr()
    rc = main(["tune", str(campaign), "--dry-run", "--trials", "2", "--workdir", str(workdir)])
    err = capsys.readouterr().err.strip()
    assert rc == 0 or (rc == 2 and len(err.splitlines()) == 1 and "cray." in err and "detected here" in err), err


"""``autotune site detect`` and ``autotune site profile`` on this machine (MPICH, ext4, /dev/shm tmpfs)."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from autotune._yaml import load_yaml
from autotune.cli import main
from autotune.model import constants_for
from autotune.systems import load_system, parse_system

MPI_HERE = shutil.which("mpiexec") is not None
VALUE = re.compile(r"^\s*[a-z_]+: [^\s#][^#]*#")  # a "key: value  # mark: ..." line


def test_detect_names_what_runs_here(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["site", "detect", "--path", str(tmp_path), "--no-mpi"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^cores +2 +\(detected: CPU affinity", out, re.M)
    assert re.search(r"^file system +\S+ at /.*profile kind posix, node-local", out, re.M)
    assert "MPI           not asked" in out and re.search(r"^tools ", out, re.M)


@pytest.mark.skipif(not MPI_HERE, reason="no mpiexec on this machine")
def test_detect_asks_the_mpi(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["site", "detect", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["mpi"]["library"]["library"] == "mpich" and data["mpi"]["io_component"] == "romio"
    assert data["mpi"]["flavour"] == "mpich" and data["cores"]["mark"] == "detected"


def _marks(text: str) -> dict[str, int]:
    return {m: sum(f"# {m}:" in line for line in text.splitlines()) for m in ("measured", "detected", "assumed")}


@pytest.mark.slow
def test_profile_without_mpi_marks_every_value(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "here.yaml"
    folders = [str(tmp_path)] + (["/dev/shm"] if Path("/dev/shm").is_dir() else [])
    argv = ["site", "profile", "-o", str(out), "--no-mpi", "--budget", "20"]
    for folder in folders:
        argv += ["--path", folder]
    assert main(argv) == 0
    text = out.read_text()
    values = [line for line in text.splitlines() if VALUE.match(line)]
    assert values and all(re.search(r"# (measured|detected|assumed)", line) for line in values)
    marks = _marks(text)
    assert marks["measured"] >= 3 and marks["detected"] >= 4
    assert "flavour: mpich" in text and "# assumed: the MPI could not be told (not asked)" in text
    system = load_system(str(out))
    assert system.name == "here" and system.cores_per_node == 2
    fs = system.filesystem()
    assert fs.kind == "posix" and fs.path == str(tmp_path.resolve())
    assert constants_for(system, fs).posix_file_bw == pytest.approx(float(fs.extra["posix_file_bw"]))
    assert len(system.filesystems) == len(folders)
    assert f"wrote {out}" in capsys.readouterr().out
    assert [p.name for p in tmp_path.iterdir()] == ["here.yaml"]  # the probe's files are gone


@pytest.mark.parametrize(("extra", "message"), [
    (["--budget", "1"], "--budget: '1' is not a number of seconds between 5 and 600"),
    (["--budget", "nan"], "--budget: 'nan'"),
    (["--path", "/surely/not/here"], "--path: '/surely/not/here' is not an existing folder"),
    (["--name", "a\nb"], "contains the control character"),  # refused for every argument at the command line
])
def test_profile_bad_input_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str],
                                       message: str) -> None:
    out = tmp_path / "p.yaml"
    assert main(["site", "profile", "-o", str(out), "--no-mpi", *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]
    assert not out.exists()


def test_profile_keeps_an_existing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "p.yaml"
    out.write_text("mine\n")
    assert main(["site", "profile", "-o", str(out), "--no-mpi", "--path", str(tmp_path)]) == 2
    assert "exists (--force overwrites it)" in capsys.readouterr().err and out.read_text() == "mine\n"


@pytest.mark.slow
@pytest.mark.mpi
@pytest.mark.skipif(not MPI_HERE, reason="no mpiexec on this machine")
def test_profile_with_mpi_measures_the_collectives(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0))  # an idle node
    out = tmp_path / "site.yaml"
    assert main(["site", "profile", "-o", str(out), "--path", str(tmp_path), "--budget", "60"]) == 0
    data = load_yaml(out, "profile")
    assert set(data["model"]) >= {"sync_per_rank", "exchange_bw", "oversub_slice", "posix_latency", "page_cache_bw"}
    text = out.read_text()
    assert re.search(r"flavour: mpich +# detected: mpich \S+ device \S+, MPI-IO romio", text)
    assert re.search(r"oversub_slice: \S+ +# measured: MPI_Barrier at 4 ranks on 2 cores", text)
    parse_system(data, str(out))


@pytest.mark.mpi
@pytest.mark.skipif(not MPI_HERE, reason="no mpiexec on this machine")
def test_a_busy_node_leaves_latencies_assumed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(os, "getloadavg", lambda: (9.0, 9.0, 9.0))  # 9 runnable tasks on 2 cores
    out = tmp_path / "busy.yaml"
    assert main(["site", "profile", "-o", str(out), "--path", str(tmp_path), "--budget", "30"]) == 0
    text = out.read_text()
    model = load_yaml(out, "profile")["model"]
    assert "sync_per_rank" not in model and "oversub_slice" not in model and "exchange_bw" in model
    assert "# not measured: collective: the node is busy (load average 9 on 2 cores)" in text
    assert "the node was busy during the probe (load average 9 on 2 cores)" in capsys.readouterr().err

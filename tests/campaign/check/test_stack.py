"""The campaign's system profile against the stack detected here, at the start of check, tune and ask.

This machine runs MPICH on ext4; Open MPI is simulated by an ``mpiexec`` script printing the text Debian's
Open MPI 4.1.4 printed here, with an ``ompi_info`` beside it printing the recorded io components."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import pytest

from autotune.campaign import Runtime, check_stack, load_campaign
from autotune.cli import main
from autotune.errors import ConfigError
from autotune.testing import local_system_file, simulate_cores

DATA = Path(__file__).parents[2] / "systems" / "data"


def fake_openmpi(folder: Path) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    text = (DATA / "openmpi_4.1.4.txt").read_text()
    for name, body in (("mpiexec", f"printf '%s' '{text}'"), ("ompi_info", f"cat '{DATA / 'ompi_info_io_4.1.4.txt'}'")):
        path = folder / name
        path.write_text(f"#!/bin/sh\n{body}\n")
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(folder / "mpiexec")


def _runtime(make_campaign: Any, **over: Any) -> Runtime:
    return Runtime.build(load_campaign(make_campaign(**over)))


def test_mpich_here_matches_the_local_profile(make_campaign: Any) -> None:
    rt = _runtime(make_campaign, app={"mpiexec": True, "ranks": 2})
    assert check_stack(rt.campaign, rt.space).lines == ()


def test_romio_hints_under_ompio_are_an_error(make_campaign: Any, tmp_path: Path) -> None:
    mpiexec = fake_openmpi(tmp_path / "ompi")
    rt = _runtime(make_campaign, app={"mpiexec": True, "ranks": 2}, launcher={"name": "local", "mpiexec": mpiexec},
                  system=str(local_system_file(tmp_path, "mpich")))  # a profile that says MPICH
    with pytest.raises(ConfigError, match=r"mpiio\.romio_cb_write.*openmpi 4\.1\.4 with MPI-IO ompio ignores") as err:
        check_stack(rt.campaign, rt.space)
    assert "--mca io romio321" in str(err.value) and "\n" not in str(err.value)
    assert "mpiio.cb_nodes" not in str(err.value).split(":")[0]  # a standard hint OMPIO honours


def test_romio_selected_under_open_mpi_is_a_one_line_contradiction(make_campaign: Any, tmp_path: Path) -> None:
    mpiexec = fake_openmpi(tmp_path / "ompi")
    rt = _runtime(make_campaign, app={"mpiexec": True, "ranks": 2}, system=str(local_system_file(tmp_path, "mpich")),
                  launcher={"name": "local", "mpiexec": mpiexec, "mpiexec_args": ["--mca", "io", "romio321"]})
    assert check_stack(rt.campaign, rt.space).lines == (
        "MPI: system 'local-mpich' says mpich; detected openmpi 4.1.4 (MPI-IO romio321)",)


def test_model_launcher_detects_nothing(make_campaign: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import autotune.campaign.check._stack as stack

    def boom(*_: object, **__: object) -> None:
        raise AssertionError("the model launcher needs no detection")

    for name in ("detect_mpi", "detect_filesystem", "detect_cores"):
        monkeypatch.setattr(stack, name, boom)
    rt = _runtime(make_campaign, launcher={"name": "model"}, system="theta", space="lustre-cray")
    assert check_stack(rt.campaign, rt.space).lines == ()


def test_profile_cores_and_file_system_contradictions(make_campaign: Any, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    simulate_cores(monkeypatch, 16)
    site = tmp_path / "site.yaml"
    site.write_text("name: site\nnode: {cores: 2}\nfilesystems: {scratch: {kind: lustre, osts: 8}}\n")
    rt = _runtime(make_campaign, system=str(site), space="local-romio")
    lines = check_stack(rt.campaign, rt.space).lines
    assert any(line.startswith("file system: system 'site' says 'scratch' is lustre; detected ") and "(posix)" in line
               for line in lines)
    assert "cores: system 'site' says 2 per node; detected 16 here (CPU affinity (16 of " in "\n".join(lines)


def test_tune_ask_check_and_dry_run_stop_alike_with_one_line(make_campaign: Any, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    mpiexec = fake_openmpi(tmp_path / "ompi")
    path = make_campaign(app={"mpiexec": True, "ranks": 2}, launcher={"name": "local", "mpiexec": mpiexec},
                         system=str(local_system_file(tmp_path, "mpich")))
    for argv in (["tune", str(path), "--no-tracking"], ["ask", str(path)], ["check", str(path)],
                 ["tune", str(path), "--dry-run"]):
        assert main(argv) == 2, argv
        err = [ln for ln in capsys.readouterr().err.strip().splitlines() if ln.startswith("autotune: error:")]
        assert len(err) == 1 and err[0].startswith("autotune: error: mpiio.romio_cb_write"), (argv, err)
        assert "fix: `space: local-openmpi`" in err[0]


def test_system_local_takes_the_launchers_mpi(make_campaign: Any, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    mpiexec = fake_openmpi(tmp_path / "ompi")
    path = make_campaign(app={"mpiexec": True, "ranks": 2}, launcher={"name": "local", "mpiexec": mpiexec})
    c = load_campaign(path)
    assert c.system.name == "local" and c.system.mpi_flavour == "openmpi" and "Open MPI v4.1.4" in c.system.mpi_source
    # a command under OMPIO receives no MPI-IO hint: local-romio leaves nothing to search, and every command says so
    for argv in (["check", str(path)], ["tune", str(path), "--dry-run"], ["tune", str(path), "--no-tracking"]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert "autotune: error: space 'local-romio' searches nothing under Open MPI (detected:" in err, argv
    kernel = load_campaign(make_campaign(app={"mpiexec": True, "ranks": 2}, launcher={"name": "model"}))
    assert kernel.system.mpi_flavour == "mpich" and kernel.system.mpi_source == ""  # nothing runs here: not asked


def test_cray_hints_are_ignored_outside_cray_mpich() -> None:
    from autotune.campaign import ignored_hints
    from autotune.systems import MpiLibrary, MpiStack

    keys = {"cray.cb_write_lock_mode": "cray_cb_write_lock_mode", "mpiio.cb_nodes": "cb_nodes",
            "mpiio.romio_cb_write": "romio_cb_write", "mpiio.cb_config_list": "cb_config_list"}
    mpich = MpiStack(MpiLibrary("mpich", "4.0.2"), "romio")
    assert ignored_hints(keys, mpich) == ["cray.cb_write_lock_mode"]
    cray = MpiStack(MpiLibrary("cray-mpich", "8.1.25"), "romio")
    assert ignored_hints(keys, cray) == []
    ompio = MpiStack(MpiLibrary("openmpi", "4.1.4"), "ompio")
    assert ignored_hints(keys, ompio) == ["cray.cb_write_lock_mode", "mpiio.romio_cb_write", "mpiio.cb_config_list"]

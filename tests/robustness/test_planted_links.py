"""Nothing autotune writes under a work directory goes through a link planted in its place."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from autotune._safefile import check_no_links, make_dirs, replace_file, write_file
from autotune.errors import ConfigError
from autotune.launch import run_process, write_record
from autotune.testing import script_campaign

APP = 'print(\'{"metrics": {"bandwidth_mib_s": 5}}\')\n'


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    """A file outside the work directory that a planted link points to; it must stay as it is."""
    path = tmp_path / "outside" / "precious.txt"
    path.parent.mkdir()
    path.write_text("keep me\n")
    return path


def test_write_file_refuses_a_link_and_leaves_its_target(tmp_path: Path, victim: Path) -> None:
    (tmp_path / "rep0.out").symlink_to(victim)
    with pytest.raises(ConfigError, match=r"rep0.out' is a symbolic link to .*precious.txt") as err:
        write_file(tmp_path / "rep0.out", "overwritten")
    assert "\n" not in str(err.value)
    assert victim.read_text() == "keep me\n"


def test_write_file_refuses_a_fifo_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "command.txt")
    with pytest.raises(ConfigError, match="not a regular file"):
        write_file(tmp_path / "command.txt", "x")


def test_replace_file_replaces_the_link_itself(tmp_path: Path, victim: Path) -> None:
    (tmp_path / "job.json").symlink_to(victim)
    replace_file(tmp_path / "job.json", "{}")
    assert not (tmp_path / "job.json").is_symlink() and (tmp_path / "job.json").read_text() == "{}"
    assert victim.read_text() == "keep me\n"


def test_make_dirs_refuses_a_linked_component(tmp_path: Path, victim: Path) -> None:
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "trial-0000").symlink_to(victim.parent)
    with pytest.raises(ConfigError, match="trial-0000"):
        make_dirs(tmp_path / "runs" / "trial-0000" / "rep-0", under=tmp_path / "runs")
    assert sorted(p.name for p in victim.parent.iterdir()) == ["precious.txt"]


def test_run_records_are_not_written_through_links(tmp_path: Path, victim: Path) -> None:
    log = tmp_path / "rep0"
    (tmp_path / "rep0.out").symlink_to(victim)
    with pytest.raises(ConfigError, match="rep0.out"):
        run_process([sys.executable, "-c", "print(1)"], dict(os.environ), tmp_path, 30, log_prefix=log)
    assert victim.read_text() == "keep me\n"
    (tmp_path / "process.json").symlink_to(victim)
    write_record(tmp_path / "process.json", "token")  # replaced, not followed
    assert victim.read_text() == "keep me\n"


def test_check_no_links_finds_one_deep_in_the_tree(tmp_path: Path, victim: Path) -> None:
    deep = make_dirs(tmp_path / "runs" / "s" / "trial-0001" / "rep-0", under=tmp_path)
    (deep / "romio-hints.txt").symlink_to(victim)
    with pytest.raises(ConfigError, match="romio-hints.txt"):
        check_no_links(tmp_path, "runs", "check")


def _tune(path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run([sys.executable, "-m", "autotune.cli", "tune", str(path), "--trials", "1"],
                          capture_output=True, text=True, timeout=120, env=env)


@pytest.mark.parametrize("planted", ["runs", "runs/robust", "runs/robust/trial-0000/rep-0/rep0.out",
                                     "runs/robust/trial-0000/rep-0/command.txt"])
def test_a_work_directory_with_linked_records_is_refused(tmp_path: Path, victim: Path, planted: str) -> None:
    path = script_campaign(tmp_path, APP)
    work = tmp_path / "work-robust"
    link = work / planted
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(victim if "." in link.name else victim.parent)
    out = _tune(path)
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert out.stderr.count("\n") == 1 and planted.rsplit("/", 1)[-1] in out.stderr, out.stderr
    assert "symbolic link" in out.stderr
    assert victim.read_text() == "keep me\n" and sorted(p.name for p in victim.parent.iterdir()) == ["precious.txt"]

"""Study names are validated at the edge; the stale-data cleanup removes only this study's own directories."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from autotune import trialrecord
from autotune.campaign import CampaignLoop, load_campaign
from autotune.campaign.file import REMEASURE_BASE, check_study_name, clean_stale_data, data_dir_name
from autotune.errors import ConfigError
from autotune.testing import GOOD_APP, script_campaign

BAD = ["*", "../*", "../../escape", "/abs", "a/b", "", ".hidden", "-x", "a..b", "x" * 129, "a b", "a\nb", "st*dy",
       "ünï", "a;rm -rf ~", None, 7]


@pytest.mark.parametrize("name", BAD)
def test_a_bad_study_name_is_a_one_line_error_naming_it(name: object) -> None:
    with pytest.raises(ConfigError) as exc:
        check_study_name(name, "--study")
    msg = str(exc.value)
    assert msg.startswith("--study: ") and repr(name) in msg and "\n" not in msg


@pytest.mark.parametrize("name", ["studytest", "a", "My_study-2.v1", "9" * 128])
def test_good_study_names_pass(name: str) -> None:
    assert check_study_name(name) == name


def test_study_key_in_the_campaign_file_is_checked(tmp_path: Path) -> None:
    path = script_campaign(tmp_path, GOOD_APP, study="../x")
    with pytest.raises(ConfigError, match=r"^study: '\.\./x' is not a study name"):
        load_campaign(path)


@pytest.mark.parametrize("study", ["*", "../*", "/abs", "../../escape"])
def test_cli_refuses_a_hostile_study_with_exit_2_and_touches_nothing(tmp_path: Path, study: str) -> None:
    path = script_campaign(tmp_path, GOOD_APP)
    target = tmp_path / "target"
    victim = target / "someone-t0001-r0"
    victim.mkdir(parents=True)
    (victim / "precious").write_text("keep me")
    out = subprocess.run([sys.executable, "-m", "autotune.cli", "tune", str(path), "--study", study],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "--study" in lines[0] and repr(study) in lines[0], out.stderr
    assert "Traceback" not in out.stderr
    assert (victim / "precious").read_text() == "keep me"
    assert not (tmp_path / "work-robust").exists()


def _mkdata(root: Path, name: str) -> Path:
    d = root / name
    d.mkdir(parents=True)
    (d / "blob").write_text(name)
    return d


def test_cleanup_removes_exactly_this_studys_directories(tmp_path: Path) -> None:
    root = tmp_path / "target"
    mine = [_mkdata(root, data_dir_name("studytest", 3, 0)), _mkdata(root, "studytest-t12345-r17")]
    others = [_mkdata(root, n) for n in ("studytest-two-t0001-r0", "studytestx-t0001-r0", "studytest-t0001-r0-old",
                                         "studytest-tx-r0", "Studytest-t0001-r0", "other-t0001-r0", "studytest")]
    outside = _mkdata(tmp_path, "studytest-t0009-r0")  # the same name, but not in the data root
    linked = tmp_path / "elsewhere"
    _mkdata(linked, "precious")
    os.symlink(linked, root / "studytest-t0004-r0")  # a link with our name: removed itself, never followed
    removed = clean_stale_data(root, "studytest")
    assert sorted(removed) == ["studytest-t0003-r0", "studytest-t0004-r0", "studytest-t12345-r17"]
    assert not any(p.exists() for p in mine) and not os.path.lexists(root / "studytest-t0004-r0")
    assert all((p / "blob").read_text() == p.name for p in others)
    assert (outside / "blob").exists() and (linked / "precious" / "blob").exists()


def test_a_dot_in_the_study_name_is_literal(tmp_path: Path) -> None:
    root = tmp_path / "t"
    keep = _mkdata(root, "a1b-t0001-r0")
    clean_stale_data(root, "a.b")
    assert keep.exists()


def test_opening_a_campaign_leaves_another_campaigns_live_data_alone(tmp_path: Path) -> None:
    """The probe's case: a campaign named `studytest` deleted the live data of `studytest-two`."""
    path = script_campaign(tmp_path, GOOD_APP, name="studytest")
    target = tmp_path / "target"
    live = _mkdata(target, "studytest-two-t0001-r0")
    stale = _mkdata(target, "studytest-t0001-r0")
    CampaignLoop(load_campaign(path), progress=False).open()
    assert (live / "blob").exists() and not stale.exists()


def test_the_cleanup_leaves_the_directories_of_trials_that_may_still_write(tmp_path: Path) -> None:
    root = tmp_path / "t"
    busy, idle = _mkdata(root, data_dir_name("s", 4, 0)), _mkdata(root, data_dir_name("s", 5, 1))
    assert clean_stale_data(root, "s", in_use=lambda: {4}) == [idle.name]
    assert (busy / "blob").exists()


def test_reopening_keeps_live_trials_and_adoptable_jobs_and_drops_the_rest(tmp_path: Path) -> None:
    """A worker joining (or a resumed campaign) removes only what no worker and no job can still write:
    a live worker's running trial and an interrupted trial whose queued retry may adopt its job keep their
    data; finished trials, unknown numbers and confirmation runs lose theirs."""
    path = script_campaign(tmp_path, GOOD_APP, name="reopen")
    study = CampaignLoop(load_campaign(path), progress=False).open()
    live = study.ask()  # the queued default, owned by this (live) process
    trialrecord.write(live, worker=f"{socket.gethostname()}:{os.getpid()}")
    done = study.ask()
    study.tell(done, 1.0)
    dead = study.ask()  # owned by a process that has exited: interrupted, its configuration queued again
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    trialrecord.write(dead, worker=f"{socket.gethostname()}:{int(gone.stdout)}")
    target = tmp_path / "target"
    kept = {n: _mkdata(target, data_dir_name("reopen", n, 0)) for n in (live.number, dead.number)}
    stale = {n: _mkdata(target, data_dir_name("reopen", n, 0)) for n in (done.number, 40, REMEASURE_BASE + 1, 2_000_000)}
    CampaignLoop(load_campaign(path), progress=False).open()
    assert all((p / "blob").exists() for p in kept.values())
    assert not any(p.exists() for p in stale.values())

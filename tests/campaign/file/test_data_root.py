"""Trial data directories go under the target's path or the work directory, never directly into a file
system's root; the cleanup of stale ones follows them there and removes nothing else."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
import yaml

from autotune.campaign import CampaignLoop, load_campaign
from autotune.campaign.file._names import data_dir_name, data_root_for, is_mount_root

USER = "autotune-"  # + the login name: the per-user folder on a shared root


@pytest.fixture(autouse=True)
def _no_user_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("SCRATCH", "PSCRATCH"):
        monkeypatch.delenv(variable, raising=False)


def test_a_folder_of_the_users_is_used_as_it_is(tmp_path: Path) -> None:
    work = tmp_path / "work"
    assert data_root_for(None, work, "s") == work / "data"
    assert data_root_for("/scratch/me/tune", work, "s", ["/scratch"]) == Path("/scratch/me/tune")
    assert data_root_for(str(tmp_path / "mine"), work, "s") == tmp_path / "mine"


def test_a_root_gets_the_work_directory_or_a_per_campaign_folder(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    home = Path("/home/u/tune")
    assert data_root_for("/", home, "s") == home / "data"   # "/" holds every work directory
    assert data_root_for("//", home, "s") == home / "data"
    mount = "/global/cscratch1"
    inside = Path(mount) / "sd" / "u" / "tune"
    assert data_root_for(mount, inside, "s", [mount]) == inside / "data"   # the work directory is on it
    own = data_root_for(mount, home, "s", [mount])
    assert own.parent.parent == Path(mount) and own.parent.name.startswith(USER) and own.name == "s"
    monkeypatch.setenv("SCRATCH", "/global/cscratch1/sd/u")   # NERSC's own directory of the user
    assert data_root_for(mount, home, "s", [mount]) == Path("/global/cscratch1/sd/u/autotune-data/s")
    monkeypatch.setenv("SCRATCH", "/elsewhere/u")   # not on this file system: not used
    assert data_root_for(mount, home, "s", [mount]).parent.name.startswith(USER)
    monkeypatch.setenv("SCRATCH", mount)            # the root itself: not the user's own directory
    assert data_root_for(mount, home, "s", [mount]).parent.name.startswith(USER)
    assert is_mount_root("/proc") and is_mount_root("/") and not is_mount_root(str(tmp_path))


def _campaign(tmp_path: Path, **extra: Any) -> Path:
    data = {"name": "c", "app": {"command": ["true"], "mpiexec": False}, "space": "local-romio",
            "workdir": str(tmp_path / "work"), "tracking": {"enabled": False}, "launcher": "model", **extra}
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.mark.parametrize(("system", "fs", "root"), [
    ("cori", None, "/global/cscratch1"), ("theta", None, "/lus/theta-fs0/projects"), ("shaheen2", None, "/scratch"),
    ("theta", "ssd", "/local/scratch"), ("local", "shm", "/dev/shm"),
])
def test_no_target_path_never_puts_data_in_the_profiles_mount(tmp_path: Path, system: str, fs: str | None,
                                                              root: str) -> None:
    target = {"filesystem": fs} if fs else {}
    for given in (target, {**target, "path": root}, {**target, "path": root + "/"}):
        c = load_campaign(_campaign(tmp_path, system=system, target=given))
        assert c.data_root.parent.parent == Path(root) and c.data_root.name == c.study
        assert c.data_root.parent.name.startswith(USER)


def test_local_disk_and_a_folder_of_the_users_are_as_before(tmp_path: Path) -> None:
    c = load_campaign(_campaign(tmp_path, system="local"))
    assert c.data_root == tmp_path / "work" / "data" and not c.data_note
    c = load_campaign(_campaign(tmp_path, system="cori", target={"path": "/global/cscratch1/sd/u/tune"}))
    assert c.data_root == Path("/global/cscratch1/sd/u/tune") and not c.data_note


def test_a_profile_whose_file_system_is_at_slash_writes_in_the_work_directory(tmp_path: Path) -> None:
    """A drafted profile of a container's overlay at /, or of /home: never /<study>-t0000-r0."""
    profile = tmp_path / "drafted.yaml"
    profile.write_text(yaml.safe_dump({"name": "drafted", "filesystems": {
        "root": {"kind": "posix", "path": "/"}, "home": {"kind": "posix", "path": "/home"}},
        "default_filesystem": "root"}))
    c = load_campaign(_campaign(tmp_path, system=str(profile)))
    assert c.data_root == tmp_path / "work" / "data"
    c = load_campaign(_campaign(tmp_path, system=str(profile), target={"filesystem": "home"}))
    assert c.data_root.parent.parent == Path("/home") and c.data_root.parent.name.startswith(USER)


def _blob(folder: Path, name: str) -> Path:
    (folder / name).mkdir(parents=True)
    (folder / name / "blob").write_text(name)
    return folder / name


def test_trials_write_under_the_per_campaign_folder_and_the_cleanup_touches_nothing_else(
        tmp_path: Path, make_campaign: Any) -> None:
    """A file system whose profile path is a (stand-in) mount: the trials' data goes into its per-user,
    per-campaign folder; opening the campaign again removes this study's stale data directories there and
    nothing it did not create: not the mount's other entries, not a same-named folder at the mount's root
    (another tool's, or an older version's), not another study's, not a file of the user's in the folder."""
    mount = tmp_path / "mount"
    profile = tmp_path / "site.yaml"
    profile.write_text(yaml.safe_dump({"name": "site", "node": {"cores": 2},
                                       "filesystems": {"scratch": {"kind": "posix", "path": str(mount)}}}))
    path = make_campaign(system=str(profile), budget={"trials": 1}, objective={"repeats": 1})
    c = load_campaign(path)
    root = c.data_root
    assert root.parent.parent == mount and root.parent.name.startswith(USER) and root.name == c.study
    theirs = [_blob(mount, n) for n in (data_dir_name(c.study, 1, 0), "project", data_dir_name("other", 1, 0))]
    (mount / "notes.txt").write_text("mine")
    stale = _blob(root, data_dir_name(c.study, 7, 0))
    keep = [_blob(root, n) for n in (data_dir_name("other", 7, 0), "results")]
    said = io.StringIO()
    CampaignLoop(c, progress=False, out=said).run()
    assert f"notice: trial data goes to {root}: {mount} is a file system's root" in said.getvalue()
    assert not stale.exists()
    assert all((p / "blob").read_text() == p.name for p in theirs + keep)
    assert (mount / "notes.txt").read_text() == "mine"
    assert sorted(p.name for p in mount.iterdir()) == sorted([root.parent.name, "notes.txt", *(p.name for p in theirs)])
    assert sorted(p.name for p in root.iterdir()) == sorted(p.name for p in keep)   # the trial's data went
    runs = list((c.workdir).rglob("command.txt"))
    assert runs and all(f"AUTOTUNE_DATA_DIR={root}/" in r.read_text() for r in runs)

"""Storage faults: read-only and full work directories, empty and corrupt stores (the bad-input probe).

The full disk is a real one: a small tmpfs mounted for the test (needs root, as in CI here).
"""

from __future__ import annotations

import io
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from autotune.testing import assert_clean, model_campaign_data, run_cli, write_campaign_yaml

ROOT = os.geteuid() == 0 and shutil.which("mount") is not None


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A 4 MiB tmpfs of its own (unmounted after the test)."""
    if not ROOT:
        pytest.skip("mounting a small tmpfs (the full disk) needs root")
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mnt)]).returncode != 0:
        pytest.skip("this machine does not allow mounting a tmpfs")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


@pytest.fixture
def readonly_dir(tmp_path: Path) -> Iterator[Path]:
    """A read-only directory: a read-only tmpfs as root (root ignores permissions), else mode 0555."""
    ro = tmp_path / "ro"
    ro.mkdir()
    if ROOT:
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,ro", "tmpfs", str(ro)]).returncode != 0:
            pytest.skip("this machine does not allow mounting a tmpfs")
        try:
            yield ro
        finally:
            subprocess.run(["umount", "-l", str(ro)], check=False)
    else:
        ro.chmod(0o555)
        yield ro
        ro.chmod(0o755)


def test_read_only_workdir_is_one_line(tmp_path: Path, readonly_dir: Path) -> None:
    path = write_campaign_yaml(tmp_path / "c.yaml", model_campaign_data(readonly_dir / "work"))
    for argv in (["tune", str(path)], ["tune", str(path), "--workdir", str(readonly_dir)]):
        o = run_cli(*argv)
        assert_clean(o, expect="workdir:")
        assert "read-only" in o.err.lower() or "permission" in o.err.lower(), o.err


@pytest.fixture(scope="module")
def ran_workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A work directory a model campaign ran in (made once: opening a new SQLite study takes seconds)."""
    tmp = tmp_path_factory.mktemp("ran")
    path = write_campaign_yaml(tmp / "c.yaml", model_campaign_data(tmp / "work"))
    o = run_cli("tune", str(path))
    assert o.rc == 0, o.err
    return tmp / "work"


def _ran(tmp_path: Path, template: Path) -> Path:
    shutil.copytree(template, tmp_path / "work")
    return write_campaign_yaml(tmp_path / "c.yaml", model_campaign_data(tmp_path / "work"))


def test_empty_optuna_db_after_earlier_runs_is_refused(tmp_path: Path, ran_workdir: Path) -> None:
    path = _ran(tmp_path, ran_workdir)
    started = tmp_path / "work" / ".autotune-started"
    os.utime(started, (started.stat().st_atime - 60, started.stat().st_mtime - 60))  # it ran a minute ago
    (tmp_path / "work" / "optuna.db").write_bytes(b"")
    o = run_cli("tune", str(path))
    assert_clean(o, expect="is empty (0 bytes) but a campaign ran in this work directory before")
    assert (tmp_path / "work" / "optuna.db").stat().st_size == 0  # nothing restarted from trial 0


@pytest.mark.slow
def test_fresh_empty_optuna_db_is_not_mistaken_for_a_lost_study(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "optuna.db").write_bytes(b"")  # another `tune` is creating it this instant
    path = write_campaign_yaml(tmp_path / "c.yaml", model_campaign_data(tmp_path / "work"))
    assert run_cli("tune", str(path)).rc == 0


@pytest.mark.parametrize("damage", ["garbage", "truncated"])
@pytest.mark.parametrize("command", ["tune", "status", "export"])
def test_corrupt_optuna_db_is_one_line(tmp_path: Path, ran_workdir: Path, damage: str, command: str) -> None:
    path = _ran(tmp_path, ran_workdir)
    db = tmp_path / "work" / "optuna.db"
    data = db.read_bytes()
    db.write_bytes(os.urandom(8192) if damage == "garbage" else data[: len(data) // 2])
    o = run_cli(command, str(path))
    assert_clean(o)
    assert o.rc == 2 and "optuna.db" in o.err, o.err


@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_corrupt_mlflow_db_is_one_line(tmp_path: Path, damage: str) -> None:
    work = tmp_path / "work"
    work.mkdir()
    ml = work / "mlflow.db"
    if damage == "garbage":
        ml.write_bytes(os.urandom(8192))
    else:  # an SQLite file cut in half (a crash while copying it, a full disk)
        with sqlite3.connect(ml) as db:
            db.execute("create table runs (x)")
            db.executemany("insert into runs values (?)", [("x" * 500,)] * 2000)
        ml.write_bytes(ml.read_bytes()[: ml.stat().st_size // 2])
    path = write_campaign_yaml(tmp_path / "c.yaml", model_campaign_data(work, tracking={"enabled": True}))
    o = run_cli("tune", str(path))
    assert_clean(o)
    assert o.rc == 2 and "mlflow.db" in o.err, o.err
    assert not (work / "optuna.db").exists()


FILLER = """
import json, os, sys
# every run leaves 700 KB next to the work directory, on the same small disk, until it is full
path = os.path.join(sys.argv[1], "fill-%d" % os.getpid())
try:
    with open(path, "wb") as f:
        f.write(b"x" * 700_000)
except OSError as exc:
    print("filler:", exc, file=sys.stderr); sys.exit(1)
print(json.dumps({"autotune_record": 1, "metrics": {"bandwidth_mib_s": 100.0 + os.getpid() % 7}}))
"""


@pytest.mark.slow
def test_full_disk_stops_cleanly_and_resumes(tmp_path: Path, tmpfs: Path) -> None:
    import optuna
    from mlflow.tracking import MlflowClient

    app = tmp_path / "filler.py"
    app.write_text(FILLER)
    work = tmpfs / "work"
    data = model_campaign_data(work, tracking={"enabled": True}, launcher={"name": "local"}, system="local",
                          target={"filesystem": "disk", "path": str(tmpfs / "data")},
                          space={"use": "local-romio", "only": ["mpiio.romio_cb_write", "mpiio.romio_ds_write",
                                                                "mpiio.cb_buffer_size"]}, sampler={"name": "random"},
                          budget={"trials": 12, "run_timeout": "30s"})
    data["app"] = {"command": [sys.executable, str(app), str(tmpfs)], "mpiexec": False, "ranks": 2,
                   "metric": {"extractor": "json"}, "pattern": {"bytes_per_rank": "1MiB", "library": "mpiio"}}
    data["objective"] = {"metric": "bandwidth_mib_s", "direction": "maximize", "repeats": 1}
    path = write_campaign_yaml(tmp_path / "c.yaml", data)

    o = run_cli("tune", str(path))
    assert_clean(o, expect="no space left on the device")
    storage = f"sqlite:///{work / 'optuna.db'}"
    study = optuna.load_study(study_name="probe", storage=storage)
    assert not [t.number for t in study.trials if t.state == optuna.trial.TrialState.RUNNING]
    client = MlflowClient(f"sqlite:///{work / 'mlflow.db'}")
    exp = client.get_experiment_by_name("probe")
    assert exp is not None
    runs = client.search_runs([exp.experiment_id])
    assert runs and all(r.info.status != "RUNNING" for r in runs)
    assert not list(work.glob(".autotune-reserve*"))

    for f in tmpfs.glob("fill-*"):  # the user frees space; the app stops filling the disk
        f.unlink()
    app.write_text(FILLER.replace('b"x" * 700_000', 'b"x"'))
    o = run_cli("tune", str(path))
    assert o.rc == 0, o.err
    study = optuna.load_study(study_name="probe", storage=storage)
    done = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE and t.user_attrs.get("ran")]
    stopped = [t for t in study.trials if "no space left" in str(t.user_attrs.get("error", ""))]
    assert len(done) == 12 and stopped
    assert {t.number for t in stopped} <= {int(t.user_attrs["retry_of"]) for t in done if "retry_of" in t.user_attrs}
    runs = client.search_runs([exp.experiment_id])
    parents = [r for r in runs if "mlflow.parentRunId" not in r.data.tags]
    assert len(parents) == 1 and parents[0].info.status == "FINISHED"
    # MLflow mirrors every trial that ran, also one whose record a full disk cut off (backfilled on resume)
    nested = sorted(int(r.data.tags["autotune.trial"]) for r in runs if "mlflow.parentRunId" in r.data.tags)
    assert nested == sorted(t.number for t in study.trials if t.user_attrs.get("ran"))


@pytest.mark.slow
def test_trials_missing_from_the_tracker_are_backfilled(tmp_path: Path) -> None:
    from collections.abc import Mapping
    from typing import Any

    from autotune.campaign import CampaignLoop, parse_campaign
    from autotune.campaign.study import backfill_tracker
    from autotune.tracking import BaseTracker, CampaignInfo, SafeTracker, TrackedTrial

    class Recorder(BaseTracker):
        name = "recorder"

        def __init__(self, logged: set[int] | None = None) -> None:
            self.logged = set(logged or ())
            self.parent_id: str | None = None
            self.records: list[TrackedTrial] = []

        def start(self, info: CampaignInfo) -> None:
            self.parent_id = "parent"

        def log_trial(self, record: TrackedTrial) -> None:
            if record.number not in self.logged:
                self.records.append(record)
                self.logged.add(record.number)

        def finish(self, summary: Mapping[str, Any]) -> None:
            return None

    c = parse_campaign(model_campaign_data(tmp_path / "work", storage=":memory:"), tmp_path)
    first = Recorder()
    result = CampaignLoop(c, tracker=first, progress=False, out=io.StringIO()).run()
    assert [r.number for r in first.records] == [0, 1, 2]
    second = Recorder(logged={0})  # trials 1 and 2 were cut off (their MLflow write failed)
    second.start(CampaignInfo("probe", "probe", ":memory:", "", "", "", "", "", ""))
    assert backfill_tracker(SafeTracker(second), result.runtime, result.study) == [1, 2]
    assert [(r.number, r.value, r.config) for r in second.records] == \
        [(r.number, r.value, r.config) for r in first.records[1:]]

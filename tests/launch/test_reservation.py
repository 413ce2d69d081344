"""A campaign on a persistent DataWarp reservation under the local Slurm: the set-up job once, every trial job
on ``#DW persistentdw``, the tear-down job at the end; the DataWarp variables point at a local directory."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from autotune.campaign import load_campaign, run_campaign
from autotune.campaign.trial import Runtime, release
from autotune.launch._persistent import STATE_FILE, set_up
from autotune.testing import ensure_local_slurm

APP = ("import json, os\n"
       "open('out.bin', 'wb').write(b'x' * (1 << 20))\n"
       "print(json.dumps({'cwd': os.getcwd(), 'metrics': {'bandwidth_mib_s': 100.0}}))\n")


def _campaign(tmp: Path, persistent: dict[str, Any], trials: int = 2) -> Path:
    app = tmp / "app.py"
    app.write_text(APP)
    data = {"name": "persist", "app": {"command": [sys.executable, str(app)], "mpiexec": False, "ranks": 2,
                                        "pattern": {"bytes_per_rank": "1MiB", "file_mode": "fpp"},
                                        "metric": {"extractor": "json"}},
            "system": "cori", "target": {"filesystem": "bb", "bb": {"persistent": persistent}},
            "space": {"use": "datawarp-cray", "only": ["mpiio.romio_cb_write"]},
            "objective": {"metric": "bandwidth_mib_s", "repeats": 1, "confirm": 0},
            "sampler": {"name": "grid"}, "budget": {"trials": trials}, "tracking": {"enabled": False},
            "launcher": {"name": "slurm", "dw_job_striped": str(tmp / "bb"), "partition": "debug", "constraint": "",
                         "poll_interval": 0.2},
            "workdir": str(tmp / "w")}
    path = tmp / "c.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_interrupted_campaign_keeps_its_reservation(tmp_path: Path) -> None:
    rt = Runtime.build(load_campaign(_campaign(tmp_path, {"name": "t1"})))
    said: list[str] = []
    release(rt.campaign, said.append, "interrupted")  # no job submitted: nothing to wait for
    assert said == ["persistent reservation t1: kept for the resumed campaign (interrupted)"]
    assert not (tmp_path / "w" / STATE_FILE).exists()


@pytest.mark.slurm
@pytest.mark.slow
def test_persistent_campaign_runs_its_three_kinds_of_job(tmp_path: Path) -> None:
    ensure_local_slurm()
    c = load_campaign(_campaign(tmp_path, {"name": "t1", "capacity": "100GiB"}))
    res = run_campaign(c, progress=False)
    assert res.stopped_by == "trials"
    state = json.loads((tmp_path / "w" / STATE_FILE).read_text())
    assert state["name"] == "t1" and state["state"] == "destroyed"
    for job in (state["create_job"], state["destroy_job"]):
        out = subprocess.run(["sacct", "-c", "-j", job, "-n", "-P", "-o", "jobid,state"], capture_output=True,
                             text=True, check=True).stdout.split()
        assert out and out[0].split("|")[1] == "COMPLETED", out
    create = (tmp_path / "w" / "bb-persistent" / "create.sh").read_text()
    assert "#BB create_persistent name=t1 capacity=164GiB access=striped type=scratch" in create
    assert "#BB destroy_persistent name=t1" in (tmp_path / "w" / "bb-persistent" / "destroy.sh").read_text()
    runs = sorted((tmp_path / "w" / "runs" / "persist").glob("trial-*/rep-0"))
    assert len(runs) == 2
    for n, run in enumerate(runs):
        job = (run / "job.sh").read_text()
        assert "#DW persistentdw name=t1" in job.splitlines() and "#DW jobdw" not in job
        record = json.loads((run / "rep0.out").read_text())
        assert record["cwd"] == str(tmp_path / "bb" / f"persist-t{n}-rep0")  # under $DW_PERSISTENT_STRIPED_t1
    assert not (tmp_path / "bb").exists()  # the tear-down job removed the stand-in reservation


def _on_local_slurm(tmp_path: Path, name: str) -> tuple[Any, dict[str, Any]]:
    """The persistent campaign ``name`` and its launcher options, with the local Slurm up."""
    ensure_local_slurm()
    c = load_campaign(_campaign(tmp_path, {"name": name}))
    assert c.persistent is not None
    return c, {k: v for k, v in c.launcher.items() if k != "name"}


@pytest.mark.slurm
@pytest.mark.slow
def test_resume_finds_the_reservation_instead_of_creating_it_again(tmp_path: Path) -> None:
    c, options = _on_local_slurm(tmp_path, "t2")
    first = set_up(c.persistent, c.study, c.system, options, c.workdir)
    job = json.loads((c.workdir / STATE_FILE).read_text())["create_job"]
    assert first == f"persistent reservation t2: created (82GiB, job {job})" and (tmp_path / "bb").is_dir()
    again = set_up(c.persistent, c.study, c.system, options, c.workdir)  # what a resumed campaign does
    assert again == f"persistent reservation t2: in place (created by job {job})"
    assert len(list((c.workdir / "bb-persistent").glob("slurm-*.out"))) == 1  # one create job, not two


@pytest.mark.slurm
@pytest.mark.slow
def test_resume_waits_for_the_create_job_an_interrupted_attempt_submitted(tmp_path: Path) -> None:
    c, options = _on_local_slurm(tmp_path, "t3")
    from autotune.launch._persistent import _submit, script

    job_dir = c.workdir / "bb-persistent"
    job = _submit(script(c.persistent, "create", c.study, c.system, options, job_dir), job_dir, "create", options)
    (c.workdir / STATE_FILE).write_text(json.dumps({"name": "t3", "state": "creating", "create_job": job}))
    assert set_up(c.persistent, c.study, c.system, options, c.workdir) == \
        f"persistent reservation t3: created (82GiB, job {job})"  # the same job, not a second one
    assert json.loads((c.workdir / STATE_FILE).read_text())["state"] == "created"

"""The Slurm launchers against the real single-node Slurm (launchers/slurm-local/up.sh brings it up)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from autotune.launch import BaseLauncher, get_launcher
from autotune.testing import PY, ensure_local_slurm, make_requests

REPO = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slurm, pytest.mark.slow]
MPI_HELLO = "from mpi4py import MPI; c = MPI.COMM_WORLD; print('rank', c.rank, 'of', c.size)"


@pytest.fixture(scope="session", autouse=True)
def slurm() -> Iterator[str]:
    """A running local Slurm; started with up.sh when ``sinfo`` does not answer."""
    yield ensure_local_slurm()


def _launcher(name: str = "slurm", **options: object) -> BaseLauncher:
    return get_launcher(name, {"poll_interval": 0.2, **options})


def _scontrol(job_id: str) -> dict[str, str]:
    out = subprocess.run(["scontrol", "show", "job", "-o", job_id], capture_output=True, text=True, check=True).stdout
    return dict(re.findall(r"(\w+)=(\S*)", out))


def _sacct(job_id: str) -> list[str]:
    out = subprocess.run(["sacct", "-c", "-j", job_id, "-n", "-P", "-o", "jobid,state,nodelist"],
                         capture_output=True, text=True, check=True).stdout
    return out.strip().splitlines()[0].split("|")


def _jobs_named(name: str) -> list[str]:
    out = subprocess.run(["scontrol", "show", "job", "-o"], capture_output=True, text=True, check=False).stdout
    return [m.group(1) for m in re.finditer(r"JobId=(\d+) JobName=(\S+)", out) if m.group(2) == name]


def test_mpi_job_succeeds_and_agrees_with_slurm(tmp_path: Path) -> None:
    reqs = make_requests(tmp_path, command=(PY, "-c", MPI_HELLO), ranks=2, reps=2)
    results = _launcher().run_many(reqs)
    assert all(r.ok for r in results), [r.error for r in results]
    job_id = results[0].info["job_id"]
    assert {r.info["job_id"] for r in results} == {job_id}  # all repetitions in one job
    for r in results:
        assert sorted(r.stdout.splitlines()) == ["rank 0 of 2", "rank 1 of 2"]
        assert r.wall_seconds > 0 and r.info["state"] == "COMPLETED"
    sc = _scontrol(job_id)
    assert sc["JobState"] == "COMPLETED" and sc["NodeList"] == results[0].info["node_list"]
    assert sc["JobName"] == "autotune-slurmtest-t0" and sc["NumTasks"] == "2"
    assert _sacct(job_id) == [job_id, "COMPLETED", results[0].info["node_list"]]
    for req in reqs:
        assert json.loads((req.run_dir / "job.json").read_text())["job_id"] == job_id


def test_failing_job_is_a_failed_repetition(tmp_path: Path) -> None:
    code = "import sys; print('bad input', file=sys.stderr); sys.exit(1)"
    [res] = _launcher().run_many(make_requests(tmp_path, command=(PY, "-c", code), mpiexec=False))
    assert not res.ok and res.returncode == 1
    assert res.error == "exit code 1: bad input" and "bad input" in res.stderr
    assert res.info["state"] == "FAILED" and _scontrol(res.info["job_id"])["ExitCode"] == "1:0"
    assert _sacct(res.info["job_id"])[1] == "FAILED"


def test_cancelled_from_outside(tmp_path: Path) -> None:
    reqs = make_requests(tmp_path, command=("sleep", "60"), mpiexec=False, reps=2)
    cancelled: list[str] = []

    def cancel_when_submitted() -> None:
        for _ in range(200):
            job = reqs[0].run_dir / "job.json"
            if job.exists():
                job_id = json.loads(job.read_text())["job_id"]
                time.sleep(1.0)
                subprocess.run(["scancel", job_id], check=True)
                cancelled.append(job_id)
                return
            time.sleep(0.1)

    t = threading.Thread(target=cancel_when_submitted)
    t.start()
    start = time.monotonic()
    results = _launcher().run_many(reqs)
    t.join()
    assert time.monotonic() - start < 30
    assert [r.info["job_id"] for r in results] == cancelled * 2
    for r in results:
        assert not r.ok and r.info["state"] == "CANCELLED"
        assert r.error and f"slurm job {cancelled[0]} CANCELLED" in r.error
    assert _sacct(cancelled[0])[1].startswith("CANCELLED")


def test_job_past_its_limit_is_cancelled_by_us(tmp_path: Path) -> None:
    start = time.monotonic()
    [res] = _launcher(time_limit=2, grace=1).run_many(
        make_requests(tmp_path, command=("sleep", "60"), mpiexec=False))
    assert time.monotonic() - start < 45  # well before the job's own end (60 s), on a loaded machine too
    assert not res.ok and res.timed_out and "ran past its time limit" in (res.error or "")
    assert _scontrol(res.info["job_id"])["JobState"] == "CANCELLED"


def test_repetition_past_its_timeout_is_stopped_in_the_job(tmp_path: Path) -> None:
    reqs = make_requests(tmp_path, command=(PY, "-c", "import time; time.sleep(60)"), ranks=2, reps=2, timeout=2)
    results = _launcher().run_many(reqs)
    assert all(r.timed_out and "timed out after 2s" in (r.error or "") for r in results)
    assert results[0].info["state"] == "FAILED"  # the job reports the first failure (124)


def test_recover_after_a_crash_does_not_submit_twice(tmp_path: Path) -> None:
    """Kill the submitting process while its job runs; a new launcher picks the job up from job.json."""
    campaign = f"crash{os.getpid()}"
    reqs = make_requests(tmp_path, command=("bash", "-c", "sleep 3; echo done-$AUTOTUNE_REPETITION"), mpiexec=False,
                         reps=2, campaign=campaign)
    driver = ("from pathlib import Path\nfrom autotune.testing import make_requests\nfrom autotune.launch import get_launcher\n"
              f"reqs = make_requests(Path({str(tmp_path)!r}), command=('bash', '-c', 'sleep 3; echo done-$AUTOTUNE_REPETITION'),"
              f" mpiexec=False, reps=2, campaign={campaign!r})\n"
              "get_launcher('slurm', {'poll_interval': 0.2}).run_many(reqs)\n")
    proc = subprocess.Popen([sys.executable, "-c", driver], cwd=REPO)
    for _ in range(200):
        if all((r.run_dir / "job.json").exists() for r in reqs):
            break
        time.sleep(0.1)
    proc.kill()
    proc.wait()
    name = f"autotune-{campaign}-t0"
    assert len(_jobs_named(name)) == 1
    resumed = [r.__class__(**{**r.__dict__, "run_dir": tmp_path / "again" / f"rep-{r.repetition}",
                              "previous_run_dir": r.run_dir}) for r in reqs]
    launcher = _launcher()
    results = [launcher.recover(r) for r in resumed]
    assert all(r is not None and r.ok for r in results), [r and r.error for r in results]
    assert [r.stdout.strip() for r in results if r] == ["done-0", "done-1"]
    assert len(_jobs_named(name)) == 1  # waited for the running job instead of submitting again
    assert {r.info["job_id"] for r in results if r} == set(_jobs_named(name))
    assert launcher.recover(make_requests(tmp_path / "fresh", command=("true",))[0]) is None


def test_datawarp_job_runs_with_a_local_stand_in(tmp_path: Path) -> None:
    """Cori's #DW lines are comments here; $DW_JOB_STRIPED points at a local directory."""
    bb = tmp_path / "bb"
    reqs = make_requests(tmp_path, system="cori", fs="bb", config={"bb.nodes": 2, "mpiio.cb_nodes": 2},
                         command=(PY, "-c", ("import os, sys; print(os.getcwd(), os.environ['MPICH_MPIIO_HINTS']);"
                                  " sys.stderr.write(os.environ['FAKE_STATS'])")),
                         env={"FAKE_STATS": "+--+\n| MPIIO write access patterns for f\n| aggregators = 2\n"
                                            "| stripe sized writes = 7\n+--+\n"},
                         mpiexec=False)
    launcher = _launcher(dw_job_striped=str(bb), partition="debug", constraint="")  # "" drops the profile's
    [res] = launcher.run_many(reqs)
    assert res.ok, (res.error, res.stderr)
    cwd, hints = res.stdout.split()
    assert cwd == str(bb / "rep0") and "cb_nodes=2" in hints
    assert res.info["mpiio_stats"]["summary"] == {"aggregators": 2, "stripe_sized_writes": 7}
    assert "#DW jobdw type=scratch access_mode=striped capacity=164GiB pool=wlm_pool" in (
        reqs[0].run_dir / "job.sh").read_text()


def test_private_datawarp_and_rabbit_jobs_run_with_local_stand_ins(tmp_path: Path) -> None:
    """access_mode=private writes under $DW_JOB_PRIVATE, a Rabbit xfs job under $DW_JOB_autotune: both local here."""
    code = "import os; print(os.getcwd(), os.environ.get('DW_JOB_PRIVATE', '-'), os.environ.get('DW_JOB_autotune', '-'))"
    private = make_requests(tmp_path / "p", system="cori", fs="bb", config={"bb.access_mode": "private"},
                            command=(PY, "-c", code), mpiexec=False)
    rabbit = make_requests(tmp_path / "r", system="rabbit-nnf", fs="rabbit", config={"rabbit.type": "xfs"},
                           command=(PY, "-c", code), mpiexec=False)
    for reqs, local, header in ((private, tmp_path / "priv", "#DW jobdw type=scratch access_mode=private capacity=82GiB"),
                                (rabbit, tmp_path / "rab", "#DW jobdw type=xfs capacity=1GiB name=autotune")):
        [res] = _launcher(dw_job_striped=str(local), partition="debug", constraint="").run_many(reqs)
        assert res.ok, (res.error, res.stderr)
        cwd, priv, rab = res.stdout.split()
        assert cwd == str(local / "rep0") and str(local) in (priv, rab)
        assert header in (reqs[0].run_dir / "job.sh").read_text()


def test_staging_is_timed_apart_from_the_run(tmp_path: Path) -> None:
    """With the stand-in the job script does the WLM's stage_in/stage_out copies, timed to rep<N>.stage_*."""
    src, dest = tmp_path / "in", tmp_path / "out"
    src.mkdir()
    (src / "input.txt").write_text("42\n")
    code = "import time; n = open('input.txt').read(); time.sleep(0.5); open('result.txt', 'w').write(n)"
    reqs = make_requests(tmp_path, system="cori", fs="bb", config={"bb.nodes": 1}, command=(PY, "-c", code),
                         mpiexec=False)
    launcher = _launcher(dw_job_striped=str(tmp_path / "bb"), stage_in=str(src), stage_out=str(dest),
                         partition="debug", constraint="")
    [res] = launcher.run_many(reqs)
    assert res.ok, (res.error, res.stderr)
    assert (dest / "rep0" / "result.txt").read_text() == "42\n"
    assert res.info["stage_in_rc"] == 0 and res.info["stage_out_rc"] == 0
    assert 0 <= res.info["stage_in_seconds"] < res.wall_seconds and 0 <= res.info["stage_out_seconds"] < res.wall_seconds
    assert res.wall_seconds >= 0.5  # the run alone: the copies are outside t0..t1
    [bad] = _launcher(dw_job_striped=str(tmp_path / "bb2"), stage_in=str(tmp_path / "missing"), partition="debug",
                      constraint="").run_many(make_requests(tmp_path / "b", system="cori", fs="bb", command=("true",),
                                                            mpiexec=False))
    assert not bad.ok and bad.error is not None and bad.error.startswith("stage_in failed (cp exit code")


def test_step_mode_runs_steps_in_one_allocation(tmp_path: Path) -> None:
    launcher = _launcher("slurm-step", allocation_time="5m")
    try:
        first = launcher.run_many(make_requests(tmp_path / "a", command=(PY, "-c", MPI_HELLO), ranks=2, reps=2))
        second = launcher.run_many(make_requests(tmp_path / "b", command=(PY, "-c", MPI_HELLO), ranks=2, trial=1))
        assert all(r.ok for r in first + second), [r.error for r in first + second]
        alloc = first[0].info["job_id"]
        assert {r.info["job_id"] for r in first + second} == {alloc} and first[0].info["mode"] == "step"
        assert sorted(first[1].stdout.splitlines()) == ["rank 0 of 2", "rank 1 of 2"]
        assert _scontrol(alloc)["JobState"] == "RUNNING"
    finally:
        launcher.close()
    assert _scontrol(alloc)["JobState"] in ("CANCELLED", "COMPLETING")

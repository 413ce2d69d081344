"""A campaign killed between sbatch returning and job.json being written: resume adopts the job by its token.

Against the real single-node Slurm (launchers/slurm-local/up.sh brings it up), like test_slurm_jobs.py.
"""

from __future__ import annotations

import json
import subprocess
import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from autotune.errors import ConfigError
from autotune.launch import BaseLauncher, RunRequest, get_launcher
from autotune.launch import _slurmctl as ctl
from autotune.launch._slurm import COMMENT_PREFIX, JOB_FILE, SUBMITTING_FILE
from autotune.testing import ensure_local_slurm, make_requests

pytestmark = [pytest.mark.slurm, pytest.mark.slow]
SLEEP_ECHO = ("bash", "-c", "sleep 2; echo done-$AUTOTUNE_REPETITION")


class Killed(Exception):
    """Stands for kill -9 at that point of the submission."""


@pytest.fixture(scope="session", autouse=True)
def slurm() -> Iterator[str]:
    """A running local Slurm; started with up.sh when ``sinfo`` does not answer."""
    yield ensure_local_slurm()


def _launcher(**options: object) -> BaseLauncher:
    return get_launcher("slurm", {"poll_interval": 0.2, **options})


def _requests(tmp_path: Path) -> tuple[list[RunRequest], str]:
    campaign = f"window{uuid.uuid4().hex[:8]}"
    return make_requests(tmp_path, command=SLEEP_ECHO, mpiexec=False, reps=2, campaign=campaign), f"autotune-{campaign}-t0"


def _resumed(reqs: list[RunRequest], tmp_path: Path) -> list[RunRequest]:
    return [replace(r, run_dir=tmp_path / "again" / f"rep-{r.repetition}", previous_run_dir=r.run_dir) for r in reqs]


def _squeue(name: str) -> list[tuple[str, str]]:
    """(job id, comment) of every job the controller knows by that name, in any state."""
    out = subprocess.run(["squeue", "--noheader", "--states=all", f"--name={name}", "--format=%i|%k"],
                         capture_output=True, text=True, check=True).stdout
    return [(job, comment) for job, _, comment in (line.strip().partition("|") for line in out.splitlines())]


def _sacct(name: str) -> list[list[str]]:
    """(job id, state, work dir) of the jobs of that name in the job completion log, once they are there."""
    rows: list[list[str]] = []
    for _ in range(50):
        out = subprocess.run(["sacct", "-c", "-n", "-X", "-P", f"--name={name}", "-S", "now-1hours",
                              "--format=JobID,JobName,State,WorkDir"], capture_output=True, text=True, check=False).stdout
        rows = [[job, *rest] for job, job_name, *rest in (line.split("|") for line in out.strip().splitlines())
                if job_name == name]  # sacct -c ignores --name
        if rows:
            break
        time.sleep(0.2)
    return rows


def _json(path: Path) -> Mapping[str, Any]:
    data = json.loads(path.read_text())
    assert isinstance(data, dict)
    return data


SQUEUE_DOWN = "squeue: error: Unable to contact slurm controller\n"


def _squeue_answers(monkeypatch: pytest.MonkeyPatch, returncode: int, stderr: str = "") -> None:
    """``squeue`` answers nothing (returncode 0) or fails with ``stderr``; other Slurm commands are real."""
    real_cmd = ctl._cmd

    def fake(argv: list[str], *args: Any, **kwargs: Any) -> subprocess.CompletedProcess[str]:
        if argv[0] == "squeue":
            return subprocess.CompletedProcess(argv, returncode, "", stderr)
        return real_cmd(argv, *args, **kwargs)

    monkeypatch.setattr(ctl, "_cmd", fake)


def _killed_before_sbatch(monkeypatch: pytest.MonkeyPatch, reqs: list[RunRequest]) -> None:
    """The submission marker is written, then the campaign dies before sbatch runs."""
    def killed(script: Path, args: object = (), env: object = None) -> str:
        raise Killed(str(script))

    monkeypatch.setattr(ctl, "submit", killed)
    with pytest.raises(Killed):
        _launcher().run_many(reqs)
    monkeypatch.undo()


def _submitted_once(results: list[Any], name: str, run_dirs: list[Path]) -> None:
    """Every result came from the one job Slurm knows by ``name``, submitted with this attempt's token; no marker left."""
    [(job_id, comment)] = _squeue(name)
    assert {r.info["job_id"] for r in results} == {job_id}
    assert comment == COMMENT_PREFIX + _json(run_dirs[0] / JOB_FILE)["token"]
    assert not any((d / SUBMITTING_FILE).exists() for d in run_dirs)


def test_kill_after_sbatch_before_job_json_adopts_that_job(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reqs, name = _requests(tmp_path)
    dying = _launcher()

    def killed(meta: Mapping[str, Any], job_id: str) -> None:
        raise Killed(job_id)

    monkeypatch.setattr(dying, "_submitted", killed)  # sbatch succeeded, writing job.json never happens
    with pytest.raises(Killed) as exc:
        dying.run_many(reqs)
    job_id = str(exc.value)
    assert all((r.run_dir / SUBMITTING_FILE).is_file() and not (r.run_dir / JOB_FILE).exists() for r in reqs)
    token = _json(reqs[0].run_dir / SUBMITTING_FILE)["token"]
    assert _squeue(name) == [(job_id, COMMENT_PREFIX + token)]

    launcher = _launcher()
    results = [launcher.recover(r) for r in _resumed(reqs, tmp_path)]
    assert all(r is not None and r.ok for r in results), [r and r.error for r in results]
    assert [r.stdout.strip() for r in results if r] == ["done-0", "done-1"]
    assert {r.info["job_id"] for r in results if r} == {job_id}
    assert all(r.info["recovered_from"] == str(q.run_dir) for r, q in zip(results, reqs, strict=True) if r)
    assert _squeue(name) == [(job_id, COMMENT_PREFIX + token)]  # adopted, not submitted again
    assert _sacct(name) == [[job_id, "COMPLETED", str(reqs[0].run_dir)]]
    for r in reqs:
        assert not (r.run_dir / SUBMITTING_FILE).exists()
        meta = _json(r.run_dir / JOB_FILE)
        assert meta["job_id"] == job_id and meta["token"] == token and meta["adopted"] is True


def test_marker_without_a_job_is_submitted_normally(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reqs, name = _requests(tmp_path)
    _killed_before_sbatch(monkeypatch, reqs)
    assert all((r.run_dir / SUBMITTING_FILE).is_file() for r in reqs) and _squeue(name) == []

    launcher = _launcher()
    resumed = _resumed(reqs, tmp_path)
    assert [launcher.recover(r) for r in resumed] == [None, None]
    assert not any((r.run_dir / SUBMITTING_FILE).exists() for r in reqs)
    results = launcher.run_many(resumed)
    assert all(r.ok for r in results), [r.error for r in results]
    assert [r.stdout.strip() for r in results] == ["done-0", "done-1"]
    _submitted_once(results, name, [r.run_dir for r in resumed])


def test_a_job_the_controller_forgot_is_found_in_the_completion_log(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """jobcomp/filetxt keeps no comment: sacct -c matches on the name and the job's work directory."""
    reqs, name = _requests(tmp_path)
    [res, _] = _launcher().run_many(reqs)
    assert res.ok, res.error
    meta = _json(reqs[0].run_dir / JOB_FILE)
    assert _sacct(name)
    _squeue_answers(monkeypatch, 0)  # the controller forgot the job
    comment = COMMENT_PREFIX + meta["token"]
    assert ctl.find_submitted(name, comment, meta["work_dir"], meta["submitted"]) == [meta["job_id"]]
    assert ctl.find_submitted(name, comment, str(tmp_path / "elsewhere"), meta["submitted"]) == []


def test_sbatch_that_fails_after_submitting_adopts_the_job(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """sbatch timed out (or its answer was lost) but the controller took the job: wait for it, never submit twice."""
    reqs, name = _requests(tmp_path)
    real_submit = ctl.submit

    def lost_answer(script: Path, args: Any = (), env: Any = None) -> str:
        real_submit(script, args, env)
        raise ctl.SlurmError("sbatch: Command 'sbatch' timed out after 60 seconds")

    monkeypatch.setattr(ctl, "submit", lost_answer)
    results = _launcher().run_many(reqs)
    assert all(r.ok for r in results), [r.error for r in results]
    _submitted_once(results, name, [r.run_dir for r in reqs])


def test_sbatch_that_failed_without_a_job_is_a_failed_repetition(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    reqs, name = _requests(tmp_path)

    def refused(script: Path, args: Any = (), env: Any = None) -> str:
        raise ctl.SlurmError("sbatch failed: Invalid account")

    monkeypatch.setattr(ctl, "submit", refused)
    results = _launcher().run_many(reqs)
    assert [r.error for r in results] == ["sbatch failed: Invalid account"] * 2 and _squeue(name) == []
    assert not any((r.run_dir / SUBMITTING_FILE).exists() for r in reqs)  # Slurm has no such job: nothing to find
    _squeue_answers(monkeypatch, 1, SQUEUE_DOWN)
    [res, _] = _launcher().run_many(reqs)
    assert res.error is not None and res.error.startswith("sbatch failed: Invalid account (and whether a job was "
                                                          "submitted is unknown: squeue failed")
    assert (reqs[0].run_dir / SUBMITTING_FILE).is_file()  # kept: the question is still open


def test_sbatch_args_cannot_set_the_name_or_comment(tmp_path: Path) -> None:
    reqs, _ = _requests(tmp_path)
    for arg in ("--comment=mine", "-J", "--job-name=x"):
        with pytest.raises(ConfigError, match="job name and comment are autotune's"):
            _launcher(sbatch_args=[arg]).run_many(reqs)


def test_no_answer_from_squeue_is_a_failed_repetition_not_a_second_job(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    reqs, _ = _requests(tmp_path)
    _killed_before_sbatch(monkeypatch, reqs)
    _squeue_answers(monkeypatch, 1, SQUEUE_DOWN)
    res = _launcher().recover(_resumed(reqs, tmp_path)[0])
    assert res is not None and not res.ok and res.error == (
        "cannot tell whether the interrupted attempt's job was submitted: "
        "squeue failed: squeue: error: Unable to contact slurm controller")
    assert (reqs[0].run_dir / SUBMITTING_FILE).is_file()  # kept: the question is still open

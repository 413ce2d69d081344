"""Jobs that cannot start, on the real single-node Slurm (2 CPUs): preflight, pending reasons, queue_wait, cancelling."""

from __future__ import annotations

import re
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from autotune.errors import ConfigError
from autotune.launch import BaseLauncher, RunResult, get_launcher
from autotune.launch._slurmbook import JOB_FILE
from autotune.launch._slurmqueue import PENDING_FILE, describe_pending
from autotune.testing import PY, ensure_local_slurm, make_requests, queued_jobs

pytestmark = [pytest.mark.slurm, pytest.mark.slow]


@pytest.fixture(scope="module", autouse=True)
def slurm() -> Iterator[str]:
    yield ensure_local_slurm()


def _launcher(name: str = "slurm", **options: object) -> BaseLauncher:
    return get_launcher(name, {"poll_interval": 0.2, **options})


def _queued(campaign: str) -> list[str]:
    """Jobs of ``campaign`` still pending or running: ``id|name|state|reason``."""
    return queued_jobs(f"autotune-{campaign}-")


def test_preflight_refuses_more_cpus_than_the_node_has(tmp_path: Path) -> None:
    reqs = make_requests(tmp_path, command=(PY, "-c", "pass"), ranks=4, campaign="pf4")
    with pytest.raises(ConfigError, match=r"^launcher: Slurm cannot run the first trial's job \(sbatch --test-only: "
                                          r"Requested node configuration is not available\); use fewer ranks"):
        _launcher().preflight(reqs)
    assert _queued("pf4") == [] and not reqs[0].run_dir.exists()  # a dry run: nothing submitted or written
    note = _launcher(overcommit=True).preflight(reqs)
    assert note is not None and note.startswith("sbatch --test-only: Job ") and "to start at" in note


def test_preflight_names_the_partition(tmp_path: Path) -> None:
    reqs = make_requests(tmp_path, command=(PY, "-c", "pass"))
    with pytest.raises(ConfigError, match=r"Invalid partition name specified\); pick another launcher.partition"):
        _launcher(partition="nosuchpart").preflight(reqs)


def test_step_mode_preflight_checks_the_allocation(tmp_path: Path) -> None:
    reqs = make_requests(tmp_path, command=(PY, "-c", "pass"), ranks=4)
    with pytest.raises(ConfigError, match=r"cannot run the step-mode allocation \(sbatch --test-only: Requested node"):
        _launcher("slurm-step").preflight(reqs)
    assert (_launcher("slurm-step", overcommit=True).preflight(reqs) or "").startswith("sbatch --test-only: Job ")


def test_a_job_pending_for_a_reason_that_cannot_clear_fails_at_once(tmp_path: Path) -> None:
    reqs = make_requests(tmp_path, command=(PY, "-c", "pass"), ranks=4, reps=2, campaign="never4")
    start = time.monotonic()
    results = _launcher().run_many(reqs)  # no preflight here: the job is submitted and pends (PartitionConfig)
    assert time.monotonic() - start < 60  # no queue_wait here: a job left pending would wait for ever
    assert [r.ok for r in results] == [False, False]
    assert results[0].error is not None and results[0].error.startswith(
        f"slurm job {results[0].info['job_id']} cannot start: Slurm says PartitionConfig; use fewer ranks")
    assert _queued("never4") == []  # cancelled
    assert "cancelled" in (reqs[0].run_dir / JOB_FILE).read_text()


def test_step_allocation_that_cannot_start_fails_the_trial_and_leaves_nothing(tmp_path: Path) -> None:
    reqs = make_requests(tmp_path, command=(PY, "-c", "pass"), ranks=4, campaign="never4s")
    launcher = _launcher("slurm-step")
    [res] = launcher.run_many(reqs)
    assert not res.ok and res.error is not None
    assert res.error.startswith("the step-mode allocation cannot start: Slurm says PartitionConfig")
    assert _queued("never4s") == [] and launcher.allocation is None  # type: ignore[attr-defined]


def test_queue_wait_bounds_a_job_that_would_start_later(tmp_path: Path) -> None:
    reqs = make_requests(tmp_path, command=(PY, "-c", "pass"), campaign="qwait")
    [res] = _launcher(queue_wait="3s", sbatch_args=["--begin=now+1hour"]).run_many(reqs)
    assert res.error is not None and "in the queue (BeginTime), past launcher.queue_wait (3s)" in res.error
    assert _queued("qwait") == []


def _run_in_thread(launcher: BaseLauncher, reqs: list) -> tuple[threading.Thread, list[RunResult]]:  # type: ignore[type-arg]
    out: list[RunResult] = []
    thread = threading.Thread(target=lambda: out.extend(launcher.run_many(reqs)))
    thread.start()
    deadline = time.monotonic() + 30
    while not (reqs[0].run_dir / PENDING_FILE).exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    return thread, out


def test_cancel_active_cancels_a_pending_job_and_resume_submits_anew(tmp_path: Path) -> None:
    reqs = make_requests(tmp_path, command=(PY, "-c", "print('hi')"), campaign="stopme", mpiexec=False)
    launcher = _launcher(sbatch_args=["--begin=now+1hour"])
    thread, _ = _run_in_thread(launcher, reqs)
    line = describe_pending(reqs[0].run_dir)
    assert line is not None and "pending for" in line and "(Slurm: BeginTime, clears by itself" in line
    [queued] = _queued("stopme")
    job_id = queued.split("|")[0]
    assert queued.split("|")[2] == "PENDING"
    lines = launcher.cancel_active()
    thread.join(30)
    assert lines == [f"cancelled slurm job {job_id} (autotune-stopme-t0, pending)"]
    assert _queued("stopme") == []
    # a resumed campaign does not adopt a job autotune cancelled on purpose: it submits the repetition anew
    retry = replace(reqs[0], trial=1, run_dir=tmp_path / "retry", previous_run_dir=reqs[0].run_dir)
    fresh = _launcher()
    assert fresh.recover(retry) is None
    [res] = fresh.run_many([retry])
    assert res.ok and res.info["job_id"] != job_id and res.stdout.strip() == "hi"


def test_a_step_allocation_waits_for_resources_then_is_released(tmp_path: Path) -> None:
    reqs = make_requests(tmp_path, command=(PY, "-c", "pass"), campaign="stopstep", mpiexec=False)
    launcher = _launcher("slurm-step", queue_wait="30s")
    blocker = subprocess.run(["sbatch", "--parsable", "--output=/dev/null", "-n", "2", "-J", "autotune-stopstep-blocker",
                              "--wrap=sleep 60"],
                             capture_output=True, text=True, check=True).stdout.strip()
    try:
        thread, out = _run_in_thread(launcher, reqs)
        assert re.search(r"\(Slurm: (Resources|Priority), clears by itself", describe_pending(reqs[0].run_dir) or "")
        assert any("autotune-stopstep-steps" in q for q in _queued("stopstep"))
        subprocess.run(["scancel", blocker], check=False)
        thread.join(30)  # the blocker gone, the allocation is granted and the step runs
        assert out and out[0].ok, out[0].error if out else "no result"
        assert "running (pending " in (describe_pending(reqs[0].run_dir) or "")
        assert launcher.cancel_active() == [f"released the step-mode allocation (slurm job {out[0].info['job_id']})"]
        assert _queued("stopstep") == []
    finally:
        subprocess.run(["scancel", blocker], check=False)
        launcher.close()

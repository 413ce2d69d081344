"""A run ends when its program exits: children its MPI ranks left behind do not hold the result hostage.

MPICH's Hydra (``mpiexec``) waits until every holder of its PMI socket has closed it, and a rank's
background child inherits that socket: without care, an app that starts ``sleep 300 &``, prints its
metric and exits 0 waits the whole run timeout and fails "timed out".
"""

from __future__ import annotations

import os
import shutil
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from autotune.launch import KILL_GRACE_S, RunResult, run_process
from autotune.testing import kill_all, processes_with

pytestmark = pytest.mark.skipif(shutil.which("mpiexec") is None, reason="needs MPICH's mpiexec")

METRIC = "echo '{\"metrics\": {\"bandwidth_mib_s\": 5}}'"


@pytest.fixture
def marker() -> Iterator[str]:
    mark = f"ROBUST_MARK={uuid.uuid4().hex}"
    yield mark
    left = processes_with(mark)
    kill_all(left)
    assert not left, f"processes left behind: {left}"


def _run(tmp_path: Path, marker: str, rank: str, ranks: int = 1, timeout: float = 60.0,
         wrapper: bool = False) -> tuple[RunResult, float]:
    app = tmp_path / "rank.sh"
    app.write_text(rank)
    argv = ["mpiexec", "-n", str(ranks), "bash", str(app)]
    if wrapper:  # a job-script-like wrapper that runs mpiexec and then does more
        (tmp_path / "wrap.sh").write_text(f"mpiexec -n {ranks} bash {app}\necho wrapper-done\n")
        argv = ["bash", str(tmp_path / "wrap.sh")]
    key, value = marker.split("=")
    start = time.monotonic()
    res = run_process(argv, {**os.environ, key: value}, tmp_path, timeout)
    return res, time.monotonic() - start


@pytest.mark.parametrize("child", [
    "sleep 300 >/dev/null 2>&1 </dev/null &",
    "setsid sleep 300 >/dev/null 2>&1 </dev/null &",
    "( trap '' TERM; exec sleep 300 ) >/dev/null 2>&1 </dev/null &",  # needs the SIGKILL after the grace
])
def test_a_background_child_of_a_rank_does_not_cost_the_result(tmp_path: Path, marker: str, child: str) -> None:
    res, took = _run(tmp_path, marker, f"{child}\n{METRIC}\n", ranks=2)
    assert res.ok and res.error is None, res.error
    assert res.stdout.count('"bandwidth_mib_s": 5') == 2
    assert took < 2 * KILL_GRACE_S + 8, took  # not the 60 s timeout
    assert processes_with(marker) == []


def test_the_ranks_exit_status_is_kept(tmp_path: Path, marker: str) -> None:
    res, took = _run(tmp_path, marker, f"sleep 300 >/dev/null 2>&1 </dev/null &\n{METRIC}\nexit 3\n")
    assert not res.timed_out and res.returncode == 3, (res.returncode, res.error)
    assert took < KILL_GRACE_S + 8, took


def test_a_wrapper_script_around_mpiexec_goes_on(tmp_path: Path, marker: str) -> None:
    res, took = _run(tmp_path, marker, f"sleep 300 >/dev/null 2>&1 </dev/null &\n{METRIC}\n", wrapper=True)
    assert res.ok and res.stdout.endswith("wrapper-done\n"), (res.error, res.stdout)
    assert took < KILL_GRACE_S + 8, took


@pytest.mark.slow
def test_a_helper_of_a_running_rank_is_left_alone(tmp_path: Path, marker: str) -> None:
    """While the rank works, its detached helper is part of the run, not a leftover."""
    rank = f"""setsid bash -c 'sleep 4; touch {tmp_path}/helper-done' >/dev/null 2>&1 </dev/null &
sleep 5
test -e {tmp_path}/helper-done || exit 9
{METRIC}
"""
    res, _ = _run(tmp_path, marker, rank)
    assert res.ok, res.error

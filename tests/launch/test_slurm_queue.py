"""Pending reasons: which clear, which fail the trial, the queue-wait limit, what `status` shows (no Slurm needed)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autotune.errors import ConfigError
from autotune.launch import get_launcher
from autotune.launch._slurmctl import JobInfo, _stop
from autotune.launch._slurmqueue import (
    CLEARS,
    HELD,
    NEVER,
    PENDING_FILE,
    PendingWatch,
    Unschedulable,
    advice,
    classify,
    describe_pending,
)


@pytest.mark.parametrize("reason", [
    "PartitionConfig", "PartitionNodeLimit", "PartitionTimeLimit", "PartitionDown", "InvalidAccount", "InvalidQOS",
    "QOSNotAllowed", "AccountNotAllowed", "BadConstraints", "DependencyNeverSatisfied", "ReservationDeleted",
    "JobHeldAdmin", "MaxMemPerLimit", "AssocMaxCpuPerJobLimit", "AssocMaxNodePerJobLimit",
    "AssocMaxWallDurationPerJobLimit", "QOSMaxWallDurationPerJobLimit", "QOSMaxGRESPerNode", "AssocMaxCpuPerNode",
    "QOSMinCpuNotSatisfied", "AssocGrpCPUMinutesLimit", "QOSGrpGRESMinutes", "AssocGrpBillingMinutes",
])
def test_reasons_that_cannot_clear(reason: str) -> None:
    assert classify(reason) == NEVER


@pytest.mark.parametrize("reason", [
    "AssocMaxJobsLimit", "AssocGrpCpuLimit", "AssocGrpJobsLimit", "AssocGrpNodeLimit", "AssocGrpCPURunMinutesLimit",
    "QOSGrpCpuLimit", "QOSMaxJobsPerUserLimit", "QOSMaxCpuPerUserLimit", "MaxJobsPerAccount", "AccountingPolicy",
])
def test_aggregate_limits_wait_for_other_jobs(reason: str) -> None:
    assert classify(reason) == HELD


@pytest.mark.parametrize("reason", [
    "Priority", "Resources", "BeginTime", "Dependency", "None", "JobHeldUser", "ReqNodeNotAvail",
    "ReqNodeNotAvail, UnavailableNodes:nid[0001-0004]", "Reservation", "BurstBufferResources", "SomethingNew",
])
def test_reasons_that_clear(reason: str) -> None:
    assert classify(reason) == CLEARS


@pytest.mark.parametrize(("text", "key"), [
    ("Requested node configuration is not available", "ranks"),
    ("PartitionNodeLimit", "launcher.nodes"),
    ("Requested time limit is invalid (missing or exceeds some limit)", "launcher.time_limit"),
    ("PartitionTimeLimit", "launcher.time_limit"),
    ("Invalid partition name specified", "launcher.partition"),
    ("Invalid account or account/partition combination specified", "launcher.account"),
    ("InvalidQOS", "launcher.qos"),
    ("Unable to contact slurm controller (connect failure)", "no Slurm controller answers from here"),
])
def test_advice_names_what_to_change(text: str, key: str) -> None:
    assert key in advice(text)


def _job(reason: str, state: str = "PENDING") -> JobInfo:
    return JobInfo("42", state, reason=reason, raw={"Account": "proj"})


def test_watch_fails_at_once_on_a_reason_that_cannot_clear(tmp_path: Path) -> None:
    watch = PendingWatch("slurm job 42", [tmp_path], holders=lambda info: 1)
    watch(_job("Priority"))
    with pytest.raises(Unschedulable, match=r"^slurm job 42 cannot start: Slurm says PartitionConfig; use fewer ranks"):
        watch(_job("PartitionConfig"))
    data = json.loads((tmp_path / PENDING_FILE).read_text())
    assert data["state"] == "PENDING" and [r for r, _ in data["reasons"]] == ["Priority", "PartitionConfig"]


def test_watch_fails_an_aggregate_limit_only_when_nothing_holds_it(tmp_path: Path) -> None:
    running = [2]
    watch = PendingWatch("slurm job 42", [tmp_path], holders=lambda info: running[0], recheck=0.0, patience=0.0)
    watch(_job("AssocGrpCpuLimit"))  # two other jobs of the account run: their end frees it
    running[0] = 0
    with pytest.raises(Unschedulable, match="AssocGrpCpuLimit and no other job of the account ran in 0s to free it"):
        watch(_job("AssocGrpCpuLimit"))


def test_an_aggregate_limit_with_nothing_holding_it_must_last_before_it_fails(tmp_path: Path) -> None:
    watch = PendingWatch("slurm job 42", [tmp_path], holders=lambda info: 0, recheck=0.0, patience=60.0)
    watch(_job("AssocMaxJobsLimit"))  # Slurm may not have re-evaluated the reason since the last job ended
    watch._free_since = time.time() - 61
    with pytest.raises(Unschedulable, match=r"AssocMaxJobsLimit and no other job of the account ran in 1m0\ds"):
        watch(_job("AssocMaxJobsLimit"))


def test_queue_wait_bounds_reasons_that_clear(tmp_path: Path) -> None:
    watch = PendingWatch("slurm job 42", [tmp_path], queue_wait=60.0, since=time.time() - 30)
    watch(_job("Priority"))
    watch.since = time.time() - 61
    with pytest.raises(Unschedulable, match=r"waited 1m0\ds in the queue \(Priority\), past launcher.queue_wait \(1m00s\)"):
        watch(_job("Priority"))


def test_status_line_shows_reason_and_time_pending(tmp_path: Path) -> None:
    watch = PendingWatch("slurm job 42", [tmp_path], since=time.time() - 125)
    watch(_job("Priority"))
    line = describe_pending(tmp_path)
    assert line is not None and line.startswith("slurm job 42 pending for 2m0")
    assert "(Slurm: Priority, clears by itself, for 0s" in line
    watch.refresh = 0.0
    time.sleep(1.1)
    watch(_job("Priority"))  # the same reason: rewritten now and then, so status can tell how fresh it is
    assert "checked 0s ago" in (describe_pending(tmp_path) or "")
    watch(_job("", state="RUNNING"))
    line = describe_pending(tmp_path)
    assert line is not None and line.startswith("slurm job 42 running (pending 2m0") and line.endswith("before it started)")
    assert describe_pending(tmp_path / "nothing") is None


@pytest.mark.parametrize("bad", ["soon", -5, 0, True, "2 fortnights"])
def test_queue_wait_is_validated(bad: object) -> None:
    with pytest.raises(ConfigError, match=r"^launcher\.queue_wait: "):
        get_launcher("slurm", {"queue_wait": bad})
    assert get_launcher("slurm", {"queue_wait": "2h"}).queue_wait == 7200  # type: ignore[attr-defined]


def test_a_salloc_that_ignores_sigterm_is_killed_after_the_grace() -> None:
    """A busy slurmctld can keep a revoked salloc waiting; giving up on it must not raise over the real error."""
    code = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('up', flush=True); time.sleep(60)"
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "up"  # the handler is in place
    start = time.monotonic()
    _stop(proc, grace=0.5)
    assert proc.returncode == -signal.SIGKILL and time.monotonic() - start < 10

"""``service.job_report``: what a production job tells, before any store is opened (the CLI's ``tell`` calls it)."""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Any

import pytest

from autotune.errors import ConfigError
from autotune.service import ASK_TIME_ENV, job_report


def runtime(metric: str = "job_seconds", kind: str = "time", maximize: bool = False) -> Any:
    """The two things ``job_report`` reads of a Runtime when no output is given: the objective and the ceiling."""
    objective = SimpleNamespace(metric=metric, kind=kind, maximize=maximize)
    return SimpleNamespace(campaign=SimpleNamespace(objective=objective), plausible_max=lambda: None)


def test_walltime_is_the_seconds_since_ask() -> None:
    asked = time.time() - 30.0
    job = job_report(runtime(), walltime=True, environ={ASK_TIME_ENV: f"{asked:.3f}"})
    assert job.failure is None and 29.0 < (job.value or 0) < 3600.0 and job.extra == {"exit_status": 0}


def test_walltime_needs_the_time_ask_printed_and_a_time_objective() -> None:
    with pytest.raises(ConfigError, match="AUTOTUNE_ASK_TIME: 'soon' is not the time printed by `autotune ask`"):
        job_report(runtime(), walltime=True, environ={ASK_TIME_ENV: "soon"})
    with pytest.raises(ConfigError, match="tell --walltime: the objective is 'bandwidth_mib_s', not a time"):
        job_report(runtime("bandwidth_mib_s", "bandwidth", True), walltime=True, environ={ASK_TIME_ENV: "1"})


def test_a_failed_job_is_a_failure_whatever_it_measured() -> None:
    job = job_report(runtime(), value=12.0, exit_status=3)
    assert (job.value, job.failure, job.extra) == (12.0, "the job exited with status 3", {"exit_status": 3})


def test_nothing_told_and_an_impossible_value_are_refused() -> None:
    with pytest.raises(ConfigError, match="tell: give the metric"):
        job_report(runtime())
    with pytest.raises(ConfigError):
        job_report(runtime(), value=-1.0)

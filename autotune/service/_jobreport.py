"""What a production job tells: the metric's value given as a number, the wall time since ``ask``, or the job's
output read by the campaign's own extractor; checked as a run's value is (refused, implausible) before any store
is opened."""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from autotune._result import RunResult
from autotune.errors import ConfigError
from autotune.measure import implausible, metric_problem, refuse_told

OUTPUT_MAX = 64 << 20  # a job's output read by `tell --output`: the metric is in its text, not in gigabytes
ASK_TIME_ENV = "AUTOTUNE_ASK_TIME"  # exported by `autotune ask`: when the job was given its configuration


@dataclass(frozen=True)
class JobReport:
    """A job's result as ``do_tell`` records it: ``value`` or ``failure`` (one line), the ``extra`` attributes kept
    on the trial, and a ``warning`` for the job's stderr (a value recorded but never recommended on its own)."""

    value: float | None
    failure: str | None
    extra: dict[str, Any] = field(default_factory=dict)
    warning: str | None = None


def job_output(name: str) -> str:
    """``tell --output FILE``: the text of a regular file or a pipe (``<(tail log)``), at most ``OUTPUT_MAX`` bytes;
    a directory, a device (``/dev/zero`` never ends) or a larger file is a ConfigError."""
    try:
        mode = os.stat(name).st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode)):
            raise ConfigError(f"tell --output: {name!r} is not a file (expected the job's output file)")
        with open(name, "rb") as f:
            raw = f.read(OUTPUT_MAX + 1)
    except OSError as exc:
        raise ConfigError(f"tell --output: cannot read {name!r}: {exc.strerror}") from None
    if len(raw) > OUTPUT_MAX:
        raise ConfigError(f"tell --output: {name!r} is larger than {OUTPUT_MAX >> 20} MiB (give the part that holds "
                          "the metric, e.g. --output <(tail -n 1000 FILE))")
    return raw.decode("utf-8", errors="replace")


def job_report(rt: Any, *, value: float | None = None, walltime: bool = False, output: str | None = None,
               exit_status: int = 0, environ: Mapping[str, str] | None = None) -> JobReport:
    """The result of the job that ran ``rt``'s campaign: a non-zero ``exit_status`` is a failure; else ``value``,
    the seconds since ``$AUTOTUNE_ASK_TIME`` (``walltime``, time objectives only) or the metric the campaign's
    extractor reads in the file ``output`` (what fails a run's repetition fails the job's trial). A value the
    objective refuses is a ConfigError; an implausible one is kept with a ``warning``."""
    c = rt.campaign
    env = os.environ if environ is None else environ
    failure = f"the job exited with status {exit_status}" if exit_status else None
    if failure is None and walltime:
        if not c.objective.metric.endswith("seconds"):
            raise ConfigError(f"tell --walltime: the objective is {c.objective.metric!r}, not a time (…seconds)")
        start = env.get(ASK_TIME_ENV, "")
        try:
            value = time.time() - float(start)
        except ValueError:
            raise ConfigError(f"{ASK_TIME_ENV}: {start!r} is not the time printed by `autotune ask`") from None
    elif failure is None and output:
        m = rt.extractor.extract(RunResult(returncode=0, stdout=job_output(output)), c.objective.metric)
        value, failure = m.value, m.error or metric_problem(c.objective.metric, m.value, c.objective.kind)
        value = None if failure else value
    if failure is None and value is None:
        raise ConfigError("tell: give the metric (--value, --walltime or --output FILE) or a non-zero --exit-status")
    warning = None
    if failure is None and value is not None:
        refuse_told(value, c.objective.kind)  # the rule a run's value obeys: refused before the store is opened
        if abs(value) < float("inf") and value == value:  # finite: told
            why = implausible(value, c.objective.kind, c.objective.maximize, (), rt.plausible_max())
            if why is not None:
                warning = f"{why}: recorded, never recommended on its own"
    return JobReport(value, failure, {"exit_status": exit_status}, warning)

"""One trial: N repetitions through the launcher, metrics extracted, their aggregate (objective.aggregate), data
removed."""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass, field
from typing import Any

from autotune.campaign.trial._runtime import Runtime
from autotune.launch import RunRequest, RunResult, tail
from autotune.measure import (
    Measurement,
    PrintedHints,
    add_mpiio_stats,
    aggregate,
    effect_of_run,
    ineffective_hints,
    judge_printed,
    metric_problem,
    not_in_effect,
    spread,
    strip_hints_display,
    took_effect,
)
from autotune.optimize import RepetitionPolicy
from autotune.space import Config


@dataclass
class TrialOutcome:
    """What a trial produced; ``value`` is None when every repetition failed."""

    number: int
    config: Config
    is_default: bool
    value: float | None
    repetitions: list[float | None]
    errors: list[str | None]
    hints: dict[str, str]
    hints_in_effect: dict[str, Any] = field(default_factory=dict)
    hints_not_in_effect: dict[str, Any] = field(default_factory=dict)
    verification: dict[str, Any] = field(default_factory=dict)  # per setting: state, how (measure._effect)
    run_info: list[dict[str, Any]] = field(default_factory=list)
    metrics: list[dict[str, float]] = field(default_factory=list)
    stderr_tail: str = ""
    stdout_tail: str = ""
    command: str = ""
    duration: float = 0.0

    @property
    def ok(self) -> bool:
        return self.value is not None

    @property
    def error(self) -> str | None:
        errs = [e for e in self.errors if e]
        if not errs:
            return None
        return errs[0] if len(set(errs)) == 1 else f"{errs[0]} (and {len(errs) - 1} more)"

    def record(self) -> dict[str, Any]:
        """The outcome as trial-record fields (``autotune.trialrecord.write(trial, **outcome.record())``)."""
        ok_vals = [v for v in self.repetitions if v is not None]
        return {
            "repetitions": self.repetitions, "repetition_errors": self.errors,
            "failed_repetitions": sum(v is None for v in self.repetitions),
            "spread": spread(ok_vals), "hints": self.hints, "hints_in_effect": self.hints_in_effect,
            "hints_not_in_effect": self.hints_not_in_effect, "verification": self.verification,
            "hints_took_effect": took_effect(self.verification) if self.verification else not self.hints_not_in_effect,
            "run_info": self.run_info, "metrics": self.metrics, "duration_s": round(self.duration, 3),
            "config": {k: v for k, v in self.config.items()}, "stderr_tail": self.stderr_tail[-4000:],
            "command": self.command,
        }


def run_trial(rt: Runtime, number: int, config: Config, is_default: bool, repeats: int,
              retry_of: int | None = None, incumbent: float | None = None) -> TrialOutcome:
    """Run ``repeats`` repetitions of ``config``; failures are recorded, never raised.

    With ``objective.adaptive`` the repetitions run one at a time and stop as soon as the
    configuration can no longer beat ``incumbent`` (``autotune.optimize.RepetitionPolicy``).
    """
    c = rt.campaign
    start = time.monotonic()
    settings = rt.settings_for(config, is_default)
    requests = [rt.request(number, r, config, is_default, settings=settings,
                           previous_run_dir=rt.previous_run_dir(retry_of, r) if retry_of is not None else None)
                for r in range(repeats)]
    outcome = TrialOutcome(number, config, is_default, None, [], [], dict(settings.info))
    try:
        outcome.command = rt.launcher.describe(requests[0])
    except Exception as exc:  # noqa: BLE001 - describing is best effort
        outcome.command = f"(cannot describe: {exc})"
    if c.objective.adaptive:
        _run_adaptive(rt, outcome, requests, incumbent, retry_of)
    else:
        try:
            recovered = [rt.launcher.recover(r) for r in requests]
            pending = [r for r, res in zip(requests, recovered, strict=True) if res is None]
            fresh = iter(rt.launcher.run_many(pending)) if pending else iter(())
            results = [res if res is not None else next(fresh) for res in recovered]
        finally:
            for r in requests:
                _drop_data(rt, r, retry_of)
        for req, res in zip(requests, results, strict=True):
            _record(rt, outcome, req, res)
    ok = [v for v in outcome.repetitions if v is not None]
    if ok:
        outcome.value = aggregate(ok, c.objective.aggregate, c.objective.maximize)
    outcome.duration = time.monotonic() - start
    return outcome


def _drop_data(rt: Runtime, req: RunRequest, retry_of: int | None) -> None:
    """Remove a finished repetition's data, and the interrupted attempt's (kept until its job was collected)."""
    shutil.rmtree(req.data_dir, ignore_errors=True)
    if retry_of is not None:
        shutil.rmtree(rt.data_dir(retry_of, req.repetition), ignore_errors=True)


def _run_adaptive(rt: Runtime, outcome: TrialOutcome, requests: list[RunRequest], incumbent: float | None,
                  retry_of: int | None = None) -> None:
    """One repetition at a time while the configuration can still beat ``incumbent`` (None: the first one)."""
    objective = rt.campaign.objective
    policy = RepetitionPolicy(len(requests), adaptive=True)
    for req in requests:
        if outcome.repetitions and not policy.more(outcome.repetitions, incumbent, objective.maximize):
            break
        try:
            res = rt.launcher.recover(req) or rt.launcher.run_many([req])[0]
        finally:
            shutil.rmtree(req.data_dir, ignore_errors=True)
        _record(rt, outcome, req, res)


def _record(rt: Runtime, outcome: TrialOutcome, req: RunRequest, res: RunResult) -> None:
    add_mpiio_stats(res)  # Cray MPI-IO statistics, whichever launcher ran it
    info = {k: v for k, v in res.info.items() if k != "command"}
    info.update(wall_s=round(res.wall_seconds, 3), returncode=res.returncode)
    outcome.run_info.append(info)
    if not res.ok:
        outcome.repetitions.append(None)
        outcome.errors.append(res.error or f"exit code {res.returncode}")
        outcome.metrics.append({})
        outcome.stderr_tail = tail(res.stderr, 30)
        outcome.stdout_tail = tail(strip_hints_display(res.stdout), 30)
        return
    res.info.setdefault("run_dir", str(req.run_dir))  # where a run's own files are (e.g. its Darshan log)
    m = rt.extractor.extract(res, rt.campaign.objective.metric)
    problem = metric_problem(rt.campaign.objective.metric, m.value, rt.campaign.objective.kind)
    if problem:  # NaN, Infinity, a bandwidth below 1 byte/s, a time not above 1 ns: a failed repetition
        m.value, m.error = None, problem
    outcome.repetitions.append(m.value)
    outcome.errors.append(m.error)
    outcome.metrics.append(m.metrics)
    if m.value is None:
        outcome.stderr_tail = tail(res.stderr, 30) or tail(res.stdout, 30)
        outcome.stdout_tail = tail(strip_hints_display(res.stdout), 30)
    in_effect, mismatches, verification = what_took_effect(req, res, m, rt.io)
    if in_effect and not outcome.hints_in_effect:
        outcome.hints_in_effect = in_effect
    outcome.hints_not_in_effect.update(mismatches)
    for key, found in verification.items():  # a setting not in effect in any repetition stays so
        if outcome.verification.get(key, {}).get("state") not in ("not in effect", "not passed"):
            outcome.verification[key] = found


def what_took_effect(req: RunRequest, res: RunResult, m: Measurement,
                     io: str = "ompio") -> tuple[dict[str, str], dict[str, Any], dict[str, Any]]:
    """The hints the library reported, the settings not in effect and the three-state verification of one run:
    a kernel's own record, else the hints a command's MPI printed (trial and ``check`` alike)."""
    printed = judge_printed(res.stdout + "\n" + res.stderr) if req.app.command else PrintedHints()
    in_effect = m.hints_in_effect or printed.hints
    verification = effect_of_run(req.settings.info, req.settings.mca, req.system.mpi_flavour,
                                 m.record if req.app.kernel is not None else None, printed, io_default=io)
    # a command's printed hints are judged in ``verification`` (on the widest open); a kernel reports its own
    mismatches = m.hints_not_in_effect or (ineffective_hints(req.settings.info, in_effect)
                                           if m.hints_in_effect and req.system.mpi_flavour != "openmpi" else {})
    return in_effect, {**not_in_effect(verification), **mismatches}, verification

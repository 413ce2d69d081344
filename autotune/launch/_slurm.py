"""Slurm launchers: one batch job per trial ("slurm") or job steps in one held allocation ("slurm-step")."""

from __future__ import annotations

import os
import re
import time
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from autotune._registry import Option
from autotune._safefile import make_dirs, replace_file
from autotune.errors import ConfigError
from autotune.launch import _slurmctl as ctl
from autotune.launch._base import RunRequest, RunResult
from autotune.launch._command import app_command
from autotune.launch._jobscript import (
    DATA,
    find_template,
    job_dw_lines,
    job_name,
    render_template,
    safe_word,
    sbatch_lines,
    script_body,
    script_setup,
    slurm_time,
)
from autotune.launch._process import run_process
from autotune.launch._slurmbook import COMMENT_PREFIX, JOB_FILE, SUBMITTING_FILE, _write_json
from autotune.launch._slurmqueue import PendingWatch, Unschedulable, preflight_job
from autotune.launch._slurmresult import SlurmCollecting
from autotune.units import parse_duration

MODES = ("job", "step")
_OWN_SBATCH_OPTIONS = ("-J", "--job-name", "--comment")  # autotune's: they identify the job on resume


class SlurmLauncher(SlurmCollecting):
    """Each trial is one ``sbatch`` job running its repetitions in turn (``mode: job``, needed when the
    burst-buffer allocation changes), or each repetition is an ``srun`` step in one allocation held for the
    campaign (``mode: step``; ``close()`` releases it).

    Options: mode, partition, account, qos, constraint (default: the system profile's ``scheduler``),
    time_limit (per job; default: the request's, else the repetitions' timeouts + 60 s), nodes,
    ntasks_per_node, overcommit, srun_args, mpi (``pmi2``), sbatch_args, template (a file in ``launchers/``),
    stage_in, stage_out, skip_lfs, dw_job_striped, python, poll_interval (s), grace (s past the limit before
    we ``scancel``), allocation_time (step mode), queue_wait (the longest a job or allocation may stay pending;
    default: no limit). A pending reason that cannot clear fails the trial at once (``_slurmqueue``).
    """

    name: ClassVar[str] = "slurm"
    default_mode: ClassVar[str] = "job"
    schema = (
        *(Option.text(k) for k in ("mode", "partition", "account", "qos", "constraint", "mpi", "template", "stage_in",
                            "stage_out", "dw_job_striped", "python")),
        *(Option.size(k) for k in ("time_limit", "allocation_time", "queue_wait")),  # a duration: seconds or "1h"
        Option.integer("nodes"), Option.integer("ntasks_per_node"), Option.flag("overcommit"), Option.flag("skip_lfs"),
        Option.words("srun_args"), Option.words("sbatch_args"), Option.number("poll_interval"), Option.number("grace"),
    )

    def __init__(self, options: Mapping[str, Any] | None = None, where: str = "launcher") -> None:
        super().__init__(options, where)
        self.mode = str(self.options.get("mode", self.default_mode))
        if self.mode not in MODES:
            raise ConfigError(f"{where}.mode: {self.mode!r} is not one of {', '.join(MODES)}")
        self.poll = float(self.options.get("poll_interval", 0.5))
        self.grace = float(self.options.get("grace", 30.0))
        wait = self.options.get("queue_wait")
        self.queue_wait = parse_duration(wait, f"{where}.queue_wait") if wait is not None else None
        extra = self.options.get("sbatch_args") or []
        if not isinstance(extra, list) or not all(isinstance(x, str) for x in extra):
            raise ConfigError(f"{where}.sbatch_args: {extra!r} is not a list of strings")
        own = [x for x in extra if x.startswith(_OWN_SBATCH_OPTIONS)]
        if own:
            raise ConfigError(f"{where}.sbatch_args: {own[0]!r}: the job name and comment are autotune's "
                              "(they find the job again when an interrupted campaign resumes)")
        self.sbatch_extra: list[str] = extra
        self.allocation = None

    # ---- rendering -------------------------------------------------------------------------------
    def _limit(self, requests: Sequence[RunRequest]) -> float:
        if self.options.get("time_limit") is not None:
            return parse_duration(self.options["time_limit"], "launcher.time_limit")
        if requests[0].time_limit:
            return float(requests[0].time_limit)
        return sum(r.timeout for r in requests) + 60.0

    def _template(self, default: str) -> Path:
        return find_template(str(self.options.get("template") or default))

    def render(self, requests: Sequence[RunRequest], allocation: str | None = None) -> str:
        """The job script (job mode) or step script (step mode) for the repetitions of one trial."""
        first = requests[0]
        setup, body = script_setup(requests, self.options), script_body(requests, self.options, allocation)
        if self.mode == "step":
            if first.settings.bb is not None or (first.settings.near is not None and first.settings.near.tier.dw_allocation):
                raise ConfigError("launcher.mode: a burst-buffer allocation needs a job per trial (mode: job)")
            return render_template(self._template("slurm-step.sh.tmpl"),
                                   {"allocation": allocation or "$ALLOCATION", "setup": setup, "body": body})
        sched = {k: self.options.get(k) for k in ("account", "partition", "qos", "constraint", "nodes",
                                                  "ntasks_per_node", "overcommit")}
        sbatch = sbatch_lines(first, sched, self._limit(requests), first.run_dir)
        return render_template(self._template("slurm-job.sh.tmpl"), {
            "sbatch": "\n".join(sbatch), "dw": "\n".join(job_dw_lines(first, self.options)),
            "setup": setup, "body": body})

    def describe(self, request: RunRequest) -> str:
        return self.render([request], self.allocation)

    # ---- running ---------------------------------------------------------------------------------
    def run(self, request: RunRequest) -> RunResult:
        return self.run_many([request])[0]

    def run_many(self, requests: Sequence[RunRequest]) -> list[RunResult]:
        """One job (or one step script) per trial among ``requests``, in order."""
        results: list[RunResult] = []
        i = 0
        while i < len(requests):
            j = i
            while j < len(requests) and requests[j].trial == requests[i].trial:
                j += 1
            group = list(requests[i:j])
            results += self._run_steps(group) if self.mode == "step" else self._run_job(group)
            i = j
        return results

    def _prepare(self, group: Sequence[RunRequest], script: str, name: str) -> Path:
        for req in group:
            make_dirs(req.run_dir, under=req.run_dir.parent.parent)  # trial-NNNN/rep-R: never links
            app_command(req, python=self.options.get("python"), data_dir=DATA).write_files()
        path = group[0].run_dir / name
        replace_file(path, script, mode=0o750)
        return path

    def _record(self, group: Sequence[RunRequest], meta: dict[str, Any], name: str = JOB_FILE) -> dict[str, Any]:
        meta.update(submitted=time.time(), job_dir=str(group[0].run_dir),
                    repetitions=[{"repetition": r.repetition, "run_dir": str(r.run_dir)} for r in group])
        for req in group:
            _write_json(req.run_dir / name, meta)
        return meta

    def _run_job(self, group: Sequence[RunRequest]) -> list[RunResult]:
        try:
            script = self._prepare(group, self.render(group), "job.sh")
        except OSError as exc:
            return [RunResult(None, error=f"cannot write the job script: {exc}") for _ in group]
        job_dir = group[0].run_dir
        limit, name, token = self._limit(group), job_name(group[0]), uuid.uuid4().hex
        try:  # before sbatch: a kill between sbatch and job.json leaves the token to find the job by
            meta = self._record(group, {"mode": "job", "script": str(script), "limit": limit, "job_name": name,
                                        "token": token, "work_dir": str(job_dir.absolute())}, SUBMITTING_FILE)
        except OSError as exc:
            return [RunResult(None, error=f"cannot write the submission marker: {exc}") for _ in group]
        with self._lock:
            self._active[token] = meta
        try:
            job_id = ctl.submit(script, [*self._sbatch_args(job_dir), f"--job-name={name}",
                                         f"--comment={COMMENT_PREFIX}{token}"])
        except ctl.SlurmError as exc:
            found, why = self._submitted_anyway(meta)
            if found is None:
                self._done(token)
                return [RunResult(None, error=str(exc) + why, stderr=str(exc), info={"mode": "job"}) for _ in group]
            job_id = found
        meta["job_id"] = job_id
        self._submitted(meta, job_id)
        return self._wait_job(group, meta, token, job_dir, limit)

    def _sbatch_args(self, job_dir: Path) -> list[str]:
        return [f"--output={job_dir}/slurm-%j.out", f"--error={job_dir}/slurm-%j.err", f"--chdir={job_dir}",
                *self.sbatch_extra]

    def _wait_job(self, group: Sequence[RunRequest], meta: dict[str, Any], token: str, job_dir: Path,
                  limit: float) -> list[RunResult]:
        """Wait for the job (failing it when its pending reason cannot clear), then collect its repetitions."""
        job_id = str(meta["job_id"])
        watch = PendingWatch(f"slurm job {job_id}", [job_dir], self.queue_wait, float(meta.get("submitted") or time.time()))
        try:
            info, overrun = ctl.wait(job_id, limit, self.grace, self.poll, on_poll=watch)
        except Unschedulable as exc:
            ctl.cancel(job_id)
            self._done(token, cancelled=f"autotune: {exc}")
            info = ctl.query(job_id)
            return [RunResult(None, error=str(exc), stderr=str(exc), info={**info.as_info(), "mode": "job"})
                    for _ in group]
        self._done(token)
        self._finished[job_id] = (info, overrun)
        return [self._collect(req, info, overrun, job_dir, limit) for req in group]

    def _allocation_args(self, first: RunRequest) -> list[str]:
        sched = {**first.system.scheduler, **{k: v for k, v in self.options.items() if v is not None}}
        args = ["-N", str(int(self.options.get("nodes") or first.app.nodes)), "-n", str(first.app.ranks),
                f"--time={slurm_time(parse_duration(self.options.get('allocation_time', '1h'), 'launcher.allocation_time'))}",
                "-J", re.sub(r"[^A-Za-z0-9_.-]", "_", f"autotune-{first.campaign}-steps")[:64]]
        args += [f"--{k}={safe_word(sched[k], k)}" for k in ("account", "partition", "qos", "constraint") if sched.get(k)]
        return args + (["--overcommit"] if self.options.get("overcommit") else [])

    def _ensure_allocation(self, first: RunRequest) -> str:
        if self.allocation is None:
            make_dirs(first.run_dir, under=first.run_dir.parent.parent)
            watch = PendingWatch("the step-mode allocation", [first.run_dir], self.queue_wait)
            try:
                self.allocation = ctl.allocate(self._allocation_args(first), on_poll=watch, poll=self.poll)
            except BaseException as exc:  # interrupted while pending: allocate cancelled it; cancel_active says so
                if watch.job_id and not isinstance(exc, ctl.SlurmError):
                    self._stop_notes.append(f"cancelled the pending step-mode allocation (slurm job {watch.job_id})")
                raise
        return self.allocation

    # ---- before and after the campaign -----------------------------------------------------------
    def preflight(self, requests: Sequence[RunRequest]) -> str | None:
        """``sbatch --test-only`` on the first trial's job script (step mode: on the allocation request)."""
        if self.mode == "step":
            return preflight_job(["--wrap=true", *self._allocation_args(requests[0])], None, "the step-mode allocation")
        return preflight_job(self.sbatch_extra, self.render(requests), "the first trial's job")

    def _run_steps(self, group: Sequence[RunRequest]) -> list[RunResult]:
        try:
            alloc = self._ensure_allocation(group[0])
        except ctl.SlurmError as exc:
            return [RunResult(None, error=str(exc), stderr=str(exc), info={"mode": "step"}) for _ in group]
        script = self._prepare(group, self.render(group, alloc), "steps.sh")
        limit = self._limit(group)
        self._record(group, {"mode": "step", "job_id": alloc, "script": str(script), "limit": limit})
        env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_") or k == "SLURM_CONF"}
        proc = run_process(["bash", str(script)], env, group[0].run_dir, limit + self.grace,
                           log_prefix=group[0].run_dir / "steps")
        info = ctl.query(alloc)
        return [self._collect(req, info, proc.timed_out, group[0].run_dir, limit, step=True) for req in group]


class SlurmStepLauncher(SlurmLauncher):
    """``slurm`` with ``mode: step``: repetitions are ``srun --jobid`` steps in one allocation (Lustre, posix)."""

    name: ClassVar[str] = "slurm-step"
    default_mode: ClassVar[str] = "step"

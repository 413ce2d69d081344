"""Slurm job bookkeeping: job.json and submission markers, adopting an interrupted attempt's job on resume,
cancelling what a stopped campaign still has queued."""

from __future__ import annotations

import abc
import json
import re
import threading
import time
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from autotune._safefile import replace_file
from autotune.launch import _slurmctl as ctl
from autotune.launch._base import BaseLauncher, RunRequest, RunResult
from autotune.launch._jobscript import RepetitionFiles
from autotune.launch._slurmqueue import PendingWatch, Unschedulable

JOB_FILE = "job.json"
SUBMITTING_FILE = "job.submitting.json"  # written before sbatch: the token that finds the job if job.json is not
COMMENT_PREFIX = "autotune-submission:"  # + token, the job's --comment


def _write_json(path: Path, data: dict[str, Any]) -> None:
    """Whole or not at all (a kill while writing leaves the previous file, or none)."""
    replace_file(path, json.dumps(data, indent=1))


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _run_dirs(meta: Mapping[str, Any]) -> list[Path]:
    return [Path(r["run_dir"]) for r in meta.get("repetitions", []) if isinstance(r, dict) and "run_dir" in r]


class SlurmBookkeeping(BaseLauncher):
    """The Slurm launchers' records of their jobs (see ``SlurmLauncher``); subclasses run and collect jobs."""

    grace: float = 30.0
    poll: float = 0.5
    queue_wait: float | None = None
    allocation: str | None = None

    def __init__(self, options: Mapping[str, Any] | None = None, where: str = "launcher") -> None:
        super().__init__(options, where)
        self._finished: dict[str, tuple[ctl.JobInfo, bool]] = {}
        self._active: dict[str, dict[str, Any]] = {}  # token -> job meta, until the job ended (cancel_active)
        self._lock = threading.Lock()
        self._stop_notes: list[str] = []  # what was cancelled outside cancel_active, for it to report

    @abc.abstractmethod
    def _collect(self, req: RunRequest, job: ctl.JobInfo, overrun: bool, job_dir: Path, limit: float,
                 step: bool = False) -> RunResult:
        """One repetition's result from the files its job left."""

    def _submitted(self, meta: Mapping[str, Any], job_id: str) -> None:
        """sbatch returned ``job_id``: job.json in every repetition's run dir, then the markers go."""
        for run_dir in _run_dirs(meta):
            _write_json(run_dir / JOB_FILE, {**meta, "job_id": job_id})
        self._unmark(meta)

    @staticmethod
    def _unmark(meta: Mapping[str, Any]) -> None:
        for run_dir in _run_dirs(meta):
            (run_dir / SUBMITTING_FILE).unlink(missing_ok=True)

    def _done(self, token: str, cancelled: str | None = None) -> None:
        """The job of ``token`` is over (``cancelled``: by us, recorded so a resume submits the trial anew)."""
        with self._lock:
            meta = self._active.pop(token, None)
        if meta is not None and cancelled:
            for run_dir in _run_dirs(meta):
                try:
                    _write_json(run_dir / JOB_FILE, {**meta, "cancelled": cancelled})
                except OSError:
                    pass

    def _submitted_anyway(self, meta: Mapping[str, Any]) -> tuple[str | None, str]:
        """After sbatch failed (a timeout, a lost answer): the job it submitted all the same, if Slurm has one.

        Returns (job id or None, what to add to the error). When Slurm cannot be asked, the marker stays so
        the question can be answered later (``recover``), and the error says a job may exist.
        """
        try:
            found = ctl.find_submitted(str(meta["job_name"]), COMMENT_PREFIX + str(meta["token"]),
                                       str(meta["work_dir"]), float(meta.get("submitted", 0)))
        except ctl.SlurmError as exc:
            return None, f" (and whether a job was submitted is unknown: {exc}; marker kept in {meta['job_dir']})"
        if found:
            return found[-1], ""
        self._unmark(meta)
        return None, ""

    def cancel_active(self) -> list[str]:
        """scancel the jobs still queued or running and the step-mode allocation; one line for each."""
        lines, self._stop_notes = self._stop_notes, []
        with self._lock:
            active = list(self._active.items())
        for token, meta in active:
            ids = [str(meta["job_id"])] if meta.get("job_id") else []
            if not ids:  # stopped between writing the marker and job.json: the token finds the job
                try:
                    ids = ctl.find_submitted(str(meta["job_name"]), COMMENT_PREFIX + token, str(meta["work_dir"]),
                                             float(meta.get("submitted", 0)))
                except ctl.SlurmError as exc:
                    lines.append(f"could not tell whether {meta['job_name']} was submitted ({exc}): check squeue")
                    continue
            live = [(job_id, info.state) for job_id in ids if not (info := ctl.query(job_id)).finished]
            for job_id, state in live:
                ctl.cancel(job_id)
                lines.append(f"cancelled slurm job {job_id} ({meta['job_name']}, {state.lower()})")
                meta["job_id"] = job_id
            # a job that ended meanwhile stays as it is: the resumed campaign collects it
            self._done(token, cancelled="autotune: the campaign was stopped" if live or not ids else None)
            self._unmark(meta)
        if self.allocation is not None:
            lines.append(f"released the step-mode allocation (slurm job {self.allocation})")
            self.close()
        return lines

    def recover(self, request: RunRequest) -> RunResult | None:
        """Pick up the job an interrupted attempt submitted for this repetition (never submit twice).

        ``previous_run_dir/job.json`` names the job: a queued or running job is waited for (with the
        same overrun watchdog), a finished one is collected. Steps died with the campaign, so a step
        repetition is only recovered when it finished. Without job.json (killed between sbatch and
        writing it) the submission marker's token finds the job, which is then adopted; when Slurm knows
        no job with it, sbatch never ran: the marker goes and the repetition is submitted anew.
        """
        prev = request.previous_run_dir
        if prev is None:
            return None
        meta = _read_json(prev / JOB_FILE)
        if meta is None and (prev / SUBMITTING_FILE).is_file():
            try:
                meta = self._adopt(prev)
            except ctl.SlurmError as exc:
                return RunResult(None, error=f"cannot tell whether the interrupted attempt's job was submitted: {exc}",
                                 stderr=str(exc), info={"mode": "job", "recovered_from": str(prev)})
        if meta is None or meta.get("cancelled"):
            return None  # never submitted, or cancelled by autotune when the campaign stopped: submit anew
        job_id, limit, job_dir = str(meta.get("job_id", "")), float(meta.get("limit", 0)), Path(meta.get("job_dir", prev))
        old = replace(request, run_dir=prev)
        step = meta.get("mode") == "step"
        finished = RepetitionFiles(prev, request.repetition).path("rc").exists()
        if step or not job_id:
            result = self._collect(old, ctl.query(job_id), False, job_dir, limit, step=True) if finished else None
        else:
            if job_id not in self._finished:
                token = str(meta.get("token") or job_id)
                with self._lock:
                    self._active[token] = {**meta, "job_name": meta.get("job_name", job_id)}
                watch = PendingWatch(f"slurm job {job_id}", [prev], self.queue_wait, float(meta.get("submitted") or time.time()))
                try:
                    self._finished[job_id] = ctl.wait(job_id, limit, self.grace, self.poll, on_poll=watch)
                except Unschedulable as exc:
                    ctl.cancel(job_id)
                    self._done(token, cancelled=f"autotune: {exc}")
                    return RunResult(None, error=str(exc), stderr=str(exc), info={"mode": "job", "job_id": job_id,
                                                                                  "recovered_from": str(prev)})
                self._done(token)
            info, overrun = self._finished[job_id]
            if info.state == "UNKNOWN" and not finished:
                return None
            result = self._collect(old, info, overrun, job_dir, limit)
        if result is not None:
            result.info["recovered_from"] = str(prev)
        return result

    def _adopt(self, prev: Path) -> dict[str, Any] | None:
        """The job submitted with the token of ``prev``'s marker, recorded in job.json; None if there is none.

        Looked up by name and comment (``squeue``, ``sacct``), else by the ``slurm-<id>.out`` it left in its
        directory (no accounting here, and the controller forgot it). Raises SlurmError when squeue fails.
        """
        marker = _read_json(prev / SUBMITTING_FILE)
        if marker is None or not marker.get("token") or not marker.get("job_name"):
            (prev / SUBMITTING_FILE).unlink(missing_ok=True)  # written whole or not at all: not by us, no token
            return None
        work_dir = str(marker.get("work_dir") or marker.get("job_dir") or prev)
        found = ctl.find_submitted(str(marker["job_name"]), COMMENT_PREFIX + str(marker["token"]), work_dir,
                                   float(marker.get("submitted", 0)))
        if not found:
            logs = (re.fullmatch(r"slurm-(\d+)\.out", p.name) for p in Path(work_dir).glob("slurm-*.out"))
            found = sorted((m.group(1) for m in logs if m), key=int)
        if not found:
            self._unmark(marker)
            return None
        self._submitted({**marker, "adopted": True}, found[-1])
        return _read_json(prev / JOB_FILE) or {**marker, "job_id": found[-1]}

    def close(self) -> None:
        """Release the allocation held for step mode."""
        if self.allocation is not None:
            ctl.cancel(self.allocation)
            self.allocation = None

"""Talking to Slurm: sbatch/salloc, job state from squeue/scontrol/sacct, scancel, a waiting watchdog."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

TERMINAL = frozenset({"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED", "OUT_OF_MEMORY",
                      "BOOT_FAIL", "DEADLINE", "REVOKED", "SPECIAL_EXIT"})
ACTIVE = frozenset({"PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "SUSPENDED", "REQUEUED", "RESIZING",
                    "STAGE_OUT", "SIGNALING", "STOPPED", "RESV_DEL_HOLD", "REQUEUE_HOLD", "REQUEUE_FED"})


class SlurmError(Exception):
    """A Slurm command failed (sbatch refused the job, the controller is unreachable, ...)."""


@dataclass
class JobInfo:
    """What Slurm says about one job."""

    job_id: str
    state: str = "UNKNOWN"
    exit_code: str = ""
    node_list: str = ""
    reason: str = ""
    start: float | None = None  # epoch seconds, when the job started running
    source: str = ""
    raw: dict[str, str] = field(default_factory=dict)

    @property
    def finished(self) -> bool:
        return self.state in TERMINAL

    def as_info(self) -> dict[str, str]:
        return {"job_id": self.job_id, "state": self.state, "exit_code": self.exit_code,
                "node_list": self.node_list, "reason": self.reason}


def _cmd(argv: Sequence[str], env: Mapping[str, str] | None = None, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout, env=env, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SlurmError(f"{argv[0]}: {exc}") from None


run_cmd = _cmd


def _epoch(text: str | None) -> float | None:
    if not text or text in ("Unknown", "None", "N/A"):
        return None
    try:
        return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S").timestamp()
    except ValueError:
        return None


def submit(script: Path, args: Sequence[str] = (), env: Mapping[str, str] | None = None) -> str:
    """``sbatch --parsable [args] script`` -> the job id (``jobid[;cluster]`` on stdout)."""
    proc = _cmd(["sbatch", "--parsable", *args, str(script)], env)
    out = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not out or not re.match(r"^\d+", out[-1]):
        lines = (proc.stderr or proc.stdout).strip().splitlines()
        raise SlurmError(f"sbatch failed: {lines[-1] if lines else f'exit code {proc.returncode}'}")
    return out[-1].split(";")[0].strip()


def test_only(script: Path | None, args: Sequence[str] = ()) -> str:
    """``sbatch --test-only [args] script``: Slurm's estimate of when the job would start (one line), or
    SlurmError with the scheduler's own words when it cannot run at all."""
    proc = _cmd(["sbatch", "--test-only", *args, *([str(script)] if script is not None else [])])
    lines = [ln.strip() for ln in (proc.stderr + "\n" + proc.stdout).splitlines() if ln.strip()]
    if proc.returncode != 0:
        words = [ln for ln in lines if "error" in ln.lower() or "failure" in ln.lower()] or lines
        last = words[-1] if words else f"exit code {proc.returncode}"
        raise SlurmError(re.sub(r"^(sbatch: )?(error: )?(allocation failure: )?", "", last))
    return next((ln for ln in lines if "to start at" in ln), lines[-1] if lines else "accepted")


def allocate(args: Sequence[str], on_poll: Callable[[JobInfo], None] | None = None, poll: float = 0.5) -> str:
    """``salloc --no-shell [args]`` -> the id of an allocation that outlives the command.

    While the allocation is pending, ``on_poll`` sees its state (and may raise to give up); when anything
    raises (or the campaign is interrupted), the pending allocation is cancelled before the error goes on.
    """
    with tempfile.TemporaryFile("w+") as log:
        try:
            proc = subprocess.Popen(["salloc", "--no-shell", *args], stdout=log, stderr=subprocess.STDOUT, text=True)
        except OSError as exc:
            raise SlurmError(f"salloc: {exc}") from None
        job = ""
        try:
            while proc.poll() is None:
                log.seek(0)
                m = re.search(r"(?:Pending|Granted) job allocation (\d+)", log.read())
                job = m.group(1) if m else job
                if job and on_poll is not None:
                    info = query(job)
                    if not info.finished:
                        on_poll(info)
                time.sleep(poll)
        except BaseException:
            if job:
                cancel(job)
            _stop(proc)
            raise
        log.seek(0)
        text = log.read()
    m = re.search(r"Granted job allocation (\d+)", text)
    if proc.returncode != 0 or m is None:
        lines = [ln for ln in text.strip().splitlines() if ln.strip()]
        raise SlurmError(f"salloc failed: {re.sub(r'^salloc: (error: )?', '', lines[-1]) if lines else proc.returncode}")
    if on_poll is not None:
        on_poll(query(m.group(1)))  # granted: the watch records when it started
    return m.group(1)


def _stop(proc: subprocess.Popen[str], grace: float = 10.0) -> None:
    """End a waiting ``salloc``: SIGTERM revokes a pending request (salloc(1), SIGNALS); a salloc that is
    still there after ``grace`` seconds (a busy slurmctld) is killed, since its job is already cancelled."""
    proc.terminate()
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def cancel(job_id: str, signal: str | None = None) -> None:
    _cmd(["scancel", *([f"--signal={signal}"] if signal else []), job_id])


def _scontrol(job_id: str) -> JobInfo | None:
    proc = _cmd(["scontrol", "show", "job", "-o", job_id])
    if proc.returncode != 0 or "JobId=" not in proc.stdout:
        return None
    raw = dict(re.findall(r"(\w[\w:/]*)=(\S*)", proc.stdout.splitlines()[0]))
    return JobInfo(job_id, raw.get("JobState", "UNKNOWN"), raw.get("ExitCode", ""),
                   raw.get("NodeList", "") if raw.get("NodeList") != "(null)" else "",
                   raw.get("Reason", "") if raw.get("Reason") != "None" else "",
                   _epoch(raw.get("StartTime")) if raw.get("JobState") != "PENDING" else None, "scontrol", raw)


def _sacct(job_id: str) -> JobInfo | None:
    """``sacct`` (accounting database) or ``sacct -c`` (jobcomp/filetxt) for a job scontrol forgot."""
    fields = "jobid,state,exitcode,nodelist,start"
    for extra in ([], ["-c"]):
        proc = _cmd(["sacct", *extra, "-j", job_id, "-X", "-n", "-P", "-o", fields])
        for line in proc.stdout.splitlines() if proc.returncode == 0 else []:
            parts = line.split("|")
            if len(parts) >= 5 and parts[0].split(".")[0] == job_id:
                state = parts[1].split()[0] if parts[1] else "UNKNOWN"
                return JobInfo(job_id, state, parts[2], parts[3], " ".join(parts[1].split()[1:]),
                               _epoch(parts[4]), "sacct" + (" -c" if extra else ""))
    return None


def _squeue(job_id: str) -> JobInfo | None:
    proc = _cmd(["squeue", "-h", "-j", job_id, "-o", "%T|%N|%r"])
    line = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not line:
        return None
    state, nodes, reason = ([*line[0].split("|"), "", ""])[:3]
    return JobInfo(job_id, state, "", nodes, reason if reason != "None" else "", None, "squeue")


def query(job_id: str) -> JobInfo:
    """The job's state: scontrol (queued, running, recently finished), then sacct, then squeue."""
    for probe in (_scontrol, _sacct, _squeue):
        info = probe(job_id)
        if info is not None:
            return info
    return JobInfo(job_id, "UNKNOWN", source="none")


def find_submitted(name: str, comment: str, work_dir: str, since: float) -> list[str]:
    """Ids of the jobs named ``name`` that were submitted with ``--comment=<comment>``, oldest first.

    ``squeue --states=all`` answers for queued, running and recently ended jobs; then ``sacct`` (accounting
    database) and ``sacct -c`` (jobcomp/filetxt) for jobs the controller forgot, from ``since`` (epoch
    seconds, minus 10 min for clock skew) on. Accounting that keeps no comments (no ``job_comment`` flag,
    jobcomp) shows an empty Comment: there a job named ``name`` that ran in ``work_dir`` counts. Raises
    SlurmError when squeue cannot be asked (no answer is not "no job").
    """
    proc = _cmd(["squeue", "--noheader", "--states=all", f"--name={name}", "--format=%i|%k"])
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines()
        raise SlurmError(f"squeue failed: {lines[-1] if lines else f'exit code {proc.returncode}'}")
    found = [job for job, _, text in (line.strip().partition("|") for line in proc.stdout.splitlines())
             if text == comment and job.isdigit()]
    if found:
        return sorted(found, key=int)
    start = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(since - 600))
    for extra in ([], ["-c"]):
        proc = _cmd(["sacct", *extra, "-n", "-X", "-P", f"--name={name}", f"--starttime={start}",
                     "--format=JobID,JobName,Comment,WorkDir"])
        for line in proc.stdout.splitlines() if proc.returncode == 0 else []:
            job, _, rest = line.partition("|")
            job_name, _, rest = rest.partition("|")  # sacct -c (22.05) ignores --name
            text, _, cwd = rest.partition("|")
            if job.isdigit() and job_name == name and (
                    text == comment or (not text and os.path.normpath(cwd) == os.path.normpath(work_dir))):
                found.append(job)
        if found:
            return sorted(set(found), key=int)
    return []


def wait(job_id: str, limit: float, grace: float, poll: float,
         on_poll: Callable[[JobInfo], None] | None = None) -> tuple[JobInfo, bool]:
    """Poll until the job ends; ``scancel`` it when it runs longer than ``limit + grace`` seconds.

    Returns (final info, whether we cancelled it for overrunning). A job Slurm no longer knows
    (``UNKNOWN`` for a while) is returned as is. ``on_poll`` sees every state of a job that has not
    ended (a pending-reason watch); what it raises goes to the caller, the job left as it is.
    """
    overrun, unknown_since = False, None
    while True:
        info = query(job_id)
        if info.finished:
            return info, overrun
        if on_poll is not None and info.state != "UNKNOWN":
            on_poll(info)
        now = time.time()
        if info.state == "UNKNOWN":
            unknown_since = unknown_since or now
            if now - unknown_since > max(10 * poll, 5.0):
                return info, overrun
        elif info.start is not None and not overrun and now - info.start > limit + grace:
            cancel(job_id)
            overrun = True
        time.sleep(poll)

"""Why a Slurm job waits: which pending reasons clear by themselves, what to change when one cannot.

Reason names are Slurm 22.05's (``job_reason_string`` in ``slurm_protocol_defs.c``; the ``REASON`` column of
``squeue``). Three kinds:

- ``never``: the request itself breaks a partition, account or QOS rule (or names something that does not
  exist), so the job cannot start until the request changes: the trial fails at once and the job is cancelled;
- ``held``: an aggregate limit of the user's account or QOS (``AssocGrp*``, ``*PerUser``, ``AssocMaxJobsLimit``
  ...): it clears when other jobs of the account end, so it fails only when none of them has run for a while;
- ``clears``: ``Priority``, ``Resources``, ``BeginTime``, ``Dependency``, ``ReqNodeNotAvail`` (nodes come back),
  ``JobHeldUser`` (the user who held it can release it), and any reason not listed: the job waits, bounded
  only by the launcher's ``queue_wait``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autotune._safefile import replace_file
from autotune.errors import ConfigError
from autotune.launch import _slurmctl as ctl

PENDING_FILE = "pending.json"  # the job's pending reasons and times, for `autotune status`
NEVER, HELD, CLEARS = "never", "held", "clears"
_KIND_TEXT = {NEVER: "cannot clear", HELD: "clears when other jobs of the account end", CLEARS: "clears by itself"}

_NEVER = frozenset({
    "PartitionConfig", "PartitionNodeLimit", "PartitionTimeLimit", "PartitionDown", "PartitionInactive",
    "InvalidAccount", "InvalidQOS", "QOSNotAllowed", "AccountNotAllowed", "BadConstraints", "DependencyNeverSatisfied",
    "ReservationDeleted", "JobHeldAdmin", "JobHoldMaxRequeue", "BurstBufferOperation", "MaxMemPerLimit",
    "AssociationTimeLimit", "QOSTimeLimit",
})
_HELD = frozenset({
    "AssocMaxJobsLimit", "AssocMaxSubmitJobLimit", "AssociationJobLimit", "AssociationResourceLimit", "QOSJobLimit",
    "QOSResourceLimit", "AccountingPolicy",
})
_PER_JOB = re.compile(r"^(Assoc|QOS)Max\w*Per(Job|Node)(Limit)?$|^QOSMin")  # the job alone exceeds it
_USED_UP = re.compile(r"^(Assoc|QOS)Grp\w*(?<!Run)Minutes(Limit)?$")  # a usage quota spent: no job end frees it
_AGGREGATE = re.compile(r"^(Assoc|QOS)Grp|Per(User|Account)(Limit)?$")


def classify(reason: str) -> str:
    """``never``, ``held`` or ``clears`` for a pending reason as ``squeue`` shows it (see the module doc)."""
    name = reason.split(",")[0].strip()
    if name in _NEVER or _PER_JOB.search(name) or _USED_UP.search(name):
        return NEVER
    if name in _HELD or _AGGREGATE.search(name):
        return HELD
    return CLEARS


_ADVICE: tuple[tuple[str, str], ...] = (
    # the Slurm client is installed but no controller answers (a laptop, a login node of another cluster)
    (r"[Uu]nable to contact slurm controller|[Cc]onnection refused|[Zz]ero [Bb]ytes were transmitted",
     "no Slurm controller answers from here: run on the cluster's submit host, or use launcher: local/model"),
    (r"time ?limit|wall|TimeLimit", "use a shorter launcher.time_limit (or budget.run_timeout x repeats)"),
    (r"node ?config|PartitionConfig|NodeLimit|processors|Cpu|CPU|Node|Mem|memory|GRES|Constraint|feature|Billing|tasks",
     "use fewer ranks or nodes (app ranks/nodes, launcher.nodes, launcher.ntasks_per_node), set launcher.overcommit: "
     "true, or pick another launcher.partition/launcher.constraint"),
    (r"[Aa]ccount|[Aa]ssoc", "pick another launcher.account"),
    (r"[Pp]artition", "pick another launcher.partition"),
    (r"QOS|qos", "pick another launcher.qos"),
    (r"[Rr]eservation", "check the reservation in launcher.sbatch_args"),
    (r"[Dd]ependency", "check the --dependency in launcher.sbatch_args"),
    (r"Held|Hold", "ask the site's administrators to release it, or pick another launcher.partition"),
)


def advice(text: str) -> str:
    """What to change in the campaign for a scheduler message or pending reason."""
    for pattern, what in _ADVICE:
        if re.search(pattern, text):
            return what
    return "check the job's request (app ranks/nodes, launcher.partition, account, qos, time_limit)"


def others_running(info: ctl.JobInfo) -> int:
    """How many other jobs of the job's account (else its user) are running: their end may lift a limit."""
    account = info.raw.get("Account", "")
    who = [f"--account={account}"] if account and account != "(null)" else [f"--user={os.getuid()}"]
    proc = ctl.run_cmd(["squeue", "-h", "-t", "RUNNING,COMPLETING,SUSPENDED", "-o", "%i", *who])
    return sum(1 for line in proc.stdout.split() if line.strip() and line.strip() != info.job_id)


class Unschedulable(ctl.SlurmError):
    """The job cannot start (a reason that will not clear, or the queue-wait limit passed)."""


def _fmt(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 3600}h{s % 3600 // 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


@dataclass
class PendingWatch:
    """Called on every poll of a job that has not ended: records its pending reasons in ``pending.json``
    (in ``run_dirs``) and raises ``Unschedulable`` when the job cannot start or waited past ``queue_wait``."""

    what: str  # "slurm job 12" / "the allocation 12"
    run_dirs: Sequence[Path]
    queue_wait: float | None = None
    since: float = field(default_factory=time.time)  # when the job was submitted
    holders: Callable[[ctl.JobInfo], int] = others_running
    recheck: float = 30.0  # seconds between asking whether other jobs hold an aggregate limit
    patience: float = 90.0  # how long nothing may hold it before it counts (Slurm re-evaluates reasons late)
    refresh: float = 15.0  # seconds between rewrites of pending.json while nothing changes (status: "checked")
    reason: str = ""
    state: str = ""
    reasons: list[list[Any]] = field(default_factory=list)
    job_id: str = ""  # the last job seen
    _held_checked: float = 0.0
    _free_since: float | None = None  # since when no other job holds the aggregate limit
    _saved: float = 0.0

    def __call__(self, info: ctl.JobInfo) -> None:
        now = time.time()
        self.job_id = info.job_id
        if info.state != "PENDING":
            if info.state != self.state:
                self.state = info.state
                self._save(now, started=now if info.state == "RUNNING" else None)
            return
        reason = info.reason or "None"
        if reason != self.reason or self.state != "PENDING":
            self.reason, self.state = reason, "PENDING"
            self.reasons.append([reason, now])
            self._held_checked, self._free_since = 0.0, None
            self._save(now)
        elif now - self._saved >= self.refresh:
            self._save(now)
        kind = classify(reason)
        if kind == NEVER:
            raise Unschedulable(f"{self.what} cannot start: Slurm says {reason}; {advice(reason)}")
        if kind == HELD and now - self._held_checked >= self.recheck:
            self._held_checked = now
            self._free_since = None if self.holders(info) else self._free_since or now
        if kind == HELD and self._free_since is not None and now - self._free_since >= self.patience:
            raise Unschedulable(f"{self.what} cannot start: Slurm says {reason} and no other job of the account "
                                f"ran in {_fmt(now - self._free_since)} to free it; {advice(reason)}")
        if self.queue_wait is not None and now - self.since > self.queue_wait:
            raise Unschedulable(f"{self.what} waited {_fmt(now - self.since)} in the queue ({reason}), past "
                                f"launcher.queue_wait ({_fmt(self.queue_wait)})")

    def _save(self, now: float, started: float | None = None) -> None:
        self._saved = now
        data: dict[str, Any] = {"what": self.what, "state": self.state, "reason": self.reason, "since": self.since,
                                "reasons": self.reasons, "updated": now}
        if started is not None:
            data["started"] = started
        for run_dir in self.run_dirs:
            try:
                replace_file(run_dir / PENDING_FILE, json.dumps(data))
            except (OSError, ConfigError):
                pass  # a status aid only


def describe_pending(run_dir: Path, now: float | None = None) -> str | None:
    """One line for ``autotune status`` from ``run_dir/pending.json``: the reason and the time spent pending."""
    try:
        data = json.loads((run_dir / PENDING_FILE).read_text())
        since, updated = float(data["since"]), float(data["updated"])
        what, state, reason = str(data["what"]), str(data["state"]), str(data.get("reason", ""))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    now = time.time() if now is None else now
    if state == "PENDING":
        reason_since = float(data["reasons"][-1][1]) if data.get("reasons") else since
        return (f"{what} pending for {_fmt(now - since)} (Slurm: {reason}, {_KIND_TEXT[classify(reason)]}, "
                f"for {_fmt(now - reason_since)}; checked {_fmt(now - updated)} ago)")
    if "started" in data:
        return f"{what} {state.lower()} (pending {_fmt(float(data['started']) - since)} before it started)"
    return None


def preflight_job(args: Sequence[str], script: str | None, what: str) -> str:
    """``sbatch --test-only`` on ``script`` (None: ``args`` carry ``--wrap``): Slurm's start estimate, or a
    one-line ConfigError with the scheduler's own words and what to change in the campaign."""
    if shutil.which("sbatch") is None:
        raise ConfigError(f"launcher: sbatch is not on PATH here, so Slurm cannot be asked about {what} "
                          "(run on a Slurm submit host, or use launcher: local/model)")
    with tempfile.TemporaryDirectory(prefix="autotune-preflight-") as tmp:
        path = Path(tmp) / "job.sh"
        if script is not None:
            path.write_text(script)
        try:
            note = ctl.test_only(path if script is not None else None, [f"--chdir={tmp}", *args])
        except ctl.SlurmError as exc:
            raise ConfigError(f"launcher: Slurm cannot run {what} (sbatch --test-only: {exc}); "
                              f"{advice(str(exc))}") from None
    return f"sbatch --test-only: {re.sub(r'^sbatch: ', '', note)}"

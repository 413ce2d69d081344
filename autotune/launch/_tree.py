"""Containing an app's whole process tree, so that nothing outlives its run (Linux ``/proc``).

Every run gets a random token in its environment (``AUTOTUNE_RUN_TOKEN``); every descendant inherits
it, including children that detach (``setsid``, double fork), so the run's processes are found by
reading ``/proc/<pid>/environ`` (only processes of the same user are readable: nobody else's can
match), besides its process group. The campaign is a child subreaper, so detached children re-parent
to it and are reaped when killed. A run records its token in its run directory; a campaign resumed
after kill -9 kills what is left of runs whose campaign process is gone (``kill_leftovers``).
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import socket
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from autotune._safefile import replace_file

RUN_TOKEN_ENV = "AUTOTUNE_RUN_TOKEN"
RECORD_NAME = "process.json"
_PR_SET_CHILD_SUBREAPER = 36
_subreaper: bool | None = None


def become_subreaper() -> bool:
    """Make this process a child subreaper (Linux >= 3.4): orphaned descendants re-parent to it."""
    global _subreaper
    if _subreaper is None:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            _subreaper = libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
        except (OSError, AttributeError):
            _subreaper = False
    return _subreaper


def new_token() -> str:
    return uuid.uuid4().hex


@dataclass(frozen=True)
class ProcStat:
    pid: int
    state: str
    ppid: int
    pgid: int
    start: int  # clock ticks after boot: with the pid, identifies one process for good
    comm: str = ""  # the executable's name, at most 15 characters (proc(5))


def proc_stat(pid: int) -> ProcStat | None:
    """``/proc/<pid>/stat`` of a process, or None when it is gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rfind(")") + 2:].split()
    comm = raw[raw.find("(") + 1:raw.rfind(")")]
    return ProcStat(pid, fields[0], int(fields[1]), int(fields[2]), int(fields[19]), comm)


def _pids() -> list[int]:
    try:
        return [int(n) for n in os.listdir("/proc") if n.isdigit()]
    except OSError:
        return []


def _has_token(pid: int, marker: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            return marker in f.read().split(b"\0")
    except OSError:
        return False


def _stats() -> dict[int, ProcStat]:
    return {pid: st for pid in _pids() if pid != os.getpid() and (st := proc_stat(pid)) is not None}


def members(token: str, pgid: int | None = None, stats: dict[int, ProcStat] | None = None) -> list[ProcStat]:
    """The live (not zombie) processes carrying ``token`` or in process group ``pgid``, and their descendants."""
    marker = f"{RUN_TOKEN_ENV}={token}".encode()
    stats = _stats() if stats is None else stats
    found = {pid for pid, st in stats.items()
             if st.state != "Z" and ((pgid is not None and st.pgid == pgid) or _has_token(pid, marker))}
    grew = True
    while grew:  # children that cleared their environment still descend from a member
        more = {pid for pid, st in stats.items() if st.ppid in found and pid not in found and st.state != "Z"}
        found |= more
        grew = bool(more)
    return [stats[p] for p in sorted(found)]


# MPI launcher processes (their ``comm``): they only wait for the ranks they started. MPICH's Hydra also
# waits until every holder of its PMI socket has closed it, which a rank's background child inherits.
# ``srun`` is not one of them: its tasks run under slurmstepd, outside the launching process's tree.
MPI_LAUNCHERS = frozenset({"mpiexec", "mpirun", "mpiexec.hydra", "mpiexec.mpich", "mpirun.mpich", "hydra_pmi_proxy",
                           "mpiexec.openmpi", "mpirun.openmpi", "orterun", "orted", "prterun", "prted"})


def strays(token: str, root: int, pgid: int | None = None) -> list[ProcStat]:
    """The run's processes left behind by its exited program, while its main process ``root`` still runs.

    Only when every leaf of ``root``'s tree is an MPI launcher process (its ranks, and whatever ran them,
    have exited): then the run's processes outside that tree (children re-parented after their parent
    exited, or detached with setsid) are leftovers the launcher waits for. Otherwise none.
    """
    stats = _stats()
    tree = {root}
    grew = True
    while grew:
        more = {pid for pid, st in stats.items() if st.ppid in tree and pid not in tree and st.state != "Z"}
        tree |= more
        grew = bool(more)
    if root not in stats or stats[root].state == "Z":
        return []
    parents = {stats[pid].ppid for pid in tree if pid in stats}
    if any(pid not in parents and stats[pid].comm not in MPI_LAUNCHERS for pid in tree):
        return []
    return [st for st in members(token, pgid, stats) if st.pid not in tree]


def _reap(pids: Iterable[int]) -> None:
    """Collect the exit status of those of ``pids`` that are (now) our children and have exited."""
    for pid in pids:
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass


def signal_tree(token: str, pgid: int | None, sig: int) -> list[ProcStat]:
    """Send ``sig`` to the group ``pgid`` and every process of the run; returns those signalled."""
    procs = members(token, pgid)
    if pgid is not None:
        try:
            os.killpg(pgid, sig)
        except (ProcessLookupError, PermissionError):
            pass
    for st in procs:
        try:
            os.kill(st.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
    return procs


def kill_tree(token: str, pgid: int | None = None, own_child: int | None = None, limit: float = 10.0,
              seen: Iterable[int] = ()) -> int:
    """SIGKILL the run's processes until none is left (at most ``limit`` seconds); returns how many.

    Killed processes, and ``seen`` (members noticed earlier that may have exited on their own), that
    are (or became, through the subreaper) our children are reaped, except ``own_child`` whose status
    belongs to its ``Popen``.
    """
    earlier = set(seen) - {own_child}
    seen = set()
    deadline = time.monotonic() + limit
    while True:
        procs = signal_tree(token, pgid, signal.SIGKILL)
        seen |= {st.pid for st in procs}
        _reap(seen - {own_child} if own_child else seen)
        if not procs or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    _reap(earlier)
    return len(seen)


_POPEN_CHILDREN: set[int] = set()  # the main processes of runs in progress (their status is their Popen's)


def own_child(pid: int, running: bool) -> None:
    """Note (or forget) a run's main process, so that ``reap_orphans`` of another run leaves it alone."""
    if running:
        _POPEN_CHILDREN.add(pid)
    else:
        _POPEN_CHILDREN.discard(pid)


def reap_orphans(since: int) -> None:
    """Reap exited orphans re-parented to us (subreaper) that started at or after ``since`` (clock ticks).

    These are detached children of a run that exited on their own before anyone listed them; the main
    processes of runs in progress (``own_child``) are left to their ``Popen``.
    """
    me = os.getpid()
    for pid in _pids():
        st = proc_stat(pid)
        if st is not None and st.state == "Z" and st.ppid == me and st.start >= since and pid not in _POPEN_CHILDREN:
            _reap([pid])


def write_record(path: Path, token: str) -> None:
    """Note in the run directory which processes a run owns (for ``kill_leftovers`` after kill -9)."""
    me = proc_stat(os.getpid())
    replace_file(path, json.dumps({"token": token, "host": socket.gethostname(), "owner_pid": os.getpid(),
                                   "owner_start": me.start if me else None}))


def _owner_alive(rec: dict[str, object]) -> bool:
    if rec.get("host") != socket.gethostname():
        return True  # another node's campaign: not ours to judge
    pid = rec.get("owner_pid")
    st = proc_stat(pid) if isinstance(pid, int) else None
    return st is not None and st.state != "Z" and st.start == rec.get("owner_start")


def kill_leftovers(runs_root: Path) -> int:
    """Kill what runs of a dead campaign process left running under ``runs_root``; returns how many.

    Only processes carrying a recorded token are touched (never a bare pid: it may have been reused),
    and only when the campaign process that started them is gone (another live worker's runs stay).
    """
    killed = 0
    for path in sorted(runs_root.glob(f"*/*/{RECORD_NAME}")):
        try:
            rec = json.loads(path.read_text())
        except (OSError, ValueError):
            path.unlink(missing_ok=True)
            continue
        if not isinstance(rec, dict) or not isinstance(rec.get("token"), str):
            path.unlink(missing_ok=True)
            continue
        if _owner_alive(rec):
            continue
        killed += kill_tree(rec["token"])
        path.unlink(missing_ok=True)
    return killed

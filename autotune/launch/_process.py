"""Running an app with a hard time limit: its whole process tree ends with the run.

The app runs in its own session with a run token in its environment (``autotune.launch._tree``);
stdout and stderr are read with a deadline (never blocked on by a grandchild holding them open) and
capped (``_capture``). At the deadline the tree gets SIGTERM, then SIGKILL after ``KILL_GRACE_S``;
when the main process exits, whatever it left running (daemons, detached children) is killed too.
An MPI launcher that outlives its ranks because it waits for their leftover children (``_tree.strays``)
has those children ended (SIGTERM, then SIGKILL after ``KILL_GRACE_S``) and then exits with its own status.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import shutil
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

from autotune._safefile import write_file
from autotune.launch._base import RunResult
from autotune.launch._capture import OUTPUT_CAP, CappedBuffer
from autotune.launch._tree import (
    RUN_TOKEN_ENV,
    become_subreaper,
    kill_tree,
    members,
    new_token,
    own_child,
    proc_stat,
    reap_orphans,
    signal_tree,
    strays,
    write_record,
)

_NOISE = ("leaked handle pool objects",)
KILL_GRACE_S = 2.0  # between SIGTERM and SIGKILL at the deadline
DRAIN_S = 1.0       # reading what is left in the pipes once the tree is dead
SAMPLE_S = 2.0      # how often a running tree is listed
STRAY_S = 0.5       # how often a launcher is checked for ranks that are gone (twice in a row to act)


def clean_stderr(text: str) -> str:
    """Drop MPICH's harmless yaksa 'leaked handle pool objects' warnings."""
    return "\n".join(line for line in text.splitlines() if not any(n in line for n in _NOISE))


def tail(text: str, lines: int = 20) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def _pdeathsig(argv: list[str]) -> list[str]:
    """``setpriv --pdeathsig KILL`` in front: the app's main process dies with the campaign (kill -9 too)."""
    setpriv = shutil.which("setpriv")
    return [setpriv, "--pdeathsig", "KILL", "--", *argv] if setpriv else argv


def run_process(argv: Sequence[str], env: Mapping[str, str], cwd: Path, timeout: float,
                log_prefix: Path | None = None, record: Path | None = None, cap: int = OUTPUT_CAP) -> RunResult:
    """Run ``argv`` (no shell); nothing it starts outlives this call (see the module docstring).

    ``record``: where to note the run's token for ``kill_leftovers`` (removed when the run ends).
    """
    become_subreaper()
    token = new_token()
    if record is not None:  # before the start: a kill -9 at any moment after it leaves a findable token
        write_record(record, token)
    start = time.monotonic()
    try:
        proc = subprocess.Popen(_pdeathsig(list(argv)), cwd=cwd, env={**env, RUN_TOKEN_ENV: token},
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True)
    except OSError as exc:
        if record is not None:
            record.unlink(missing_ok=True)
        return RunResult(returncode=None, error=f"cannot start {argv[0]!r}: {exc.strerror}", stderr=str(exc))
    assert proc.stdout is not None and proc.stderr is not None
    bufs: dict[IO[bytes], CappedBuffer] = {proc.stdout: CappedBuffer(cap), proc.stderr: CappedBuffer(cap)}
    timed_out = False
    seen: set[int] = set()
    own_child(proc.pid, True)
    began = proc_stat(proc.pid)
    try:
        timed_out = _pump(proc, bufs, token, start + timeout, seen)
    finally:
        kill_tree(token, proc.pid, own_child=proc.pid, seen=seen)
        if began is not None:
            reap_orphans(began.start)
        proc.wait()
        own_child(proc.pid, False)
        _drain(bufs, time.monotonic() + DRAIN_S)
        if record is not None:
            record.unlink(missing_ok=True)
    wall = time.monotonic() - start
    out, err = bufs[proc.stdout].text(), clean_stderr(bufs[proc.stderr].text())
    if log_prefix is not None:
        write_file(log_prefix.with_suffix(".out"), out)
        write_file(log_prefix.with_suffix(".err"), err)
    result = RunResult(returncode=proc.returncode, stdout=out, stderr=err, wall_seconds=wall, timed_out=timed_out)
    if timed_out:
        result.error = f"timed out after {timeout:g}s (killed)"
    elif proc.returncode in (126, 127) and err.startswith("setpriv: failed to execute"):
        result.error = f"cannot start {argv[0]!r}: {err.strip().rpartition(': ')[2]}"
    elif proc.returncode != 0:
        last = tail(err, 1) or tail(out, 1)
        result.error = f"exit code {proc.returncode}" + (f": {last}" if last else "")
    return result


def _exited(pid: int) -> bool:
    """True once ``pid`` has exited; it is not reaped (its pid and group stay ours until ``wait``)."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def _pump(proc: subprocess.Popen[bytes], bufs: dict[IO[bytes], CappedBuffer], token: str, deadline: float,
          seen: set[int]) -> bool:
    """Read output until the main process exits or the deadline (then SIGTERM, grace); True on timeout.

    Every ``SAMPLE_S`` the run's processes are noted in ``seen`` (to reap detached ones that exit alone).
    """
    sel = selectors.DefaultSelector()
    for f in bufs:
        os.set_blocking(f.fileno(), False)
        sel.register(f, selectors.EVENT_READ)
    hard: float | None = None
    sample = time.monotonic() + SAMPLE_S
    leftovers = _Leftovers(token, proc.pid, seen)
    try:
        while not _exited(proc.pid):
            now = time.monotonic()
            if now >= sample:
                seen.update(st.pid for st in members(token, proc.pid))
                sample = now + SAMPLE_S
            if hard is None:
                leftovers.check(now)
            if hard is None and now >= deadline:
                signal_tree(token, proc.pid, signal.SIGTERM)
                hard = now + KILL_GRACE_S
            if hard is not None and now >= hard:
                break
            _read(sel, bufs, min(0.1, max(0.0, (hard or deadline) - now)))
        return hard is not None
    finally:
        sel.close()


class _Leftovers:
    """Ends what a run's exited ranks left running while the launcher waits for it (see ``_tree.strays``)."""

    def __init__(self, token: str, root: int, seen: set[int]) -> None:
        self.token, self.root, self.seen = token, root, seen
        self.next = time.monotonic() + STRAY_S
        self.found = False          # seen at the last check: one more in a row and they are ended
        self.kill_at: float | None = None

    def check(self, now: float) -> None:
        if now < self.next:
            return
        self.next = now + STRAY_S
        procs = strays(self.token, self.root, self.root)
        self.seen.update(st.pid for st in procs)
        if self.kill_at is not None and now >= self.kill_at:
            sig: int = signal.SIGKILL
        elif procs and self.found and self.kill_at is None:
            sig, self.kill_at = signal.SIGTERM, now + KILL_GRACE_S
        else:
            sig = 0  # none
        self.found = bool(procs)
        for st in procs if sig else ():
            with contextlib.suppress(ProcessLookupError, PermissionError):  # gone already, or not ours to end
                os.kill(st.pid, sig)
        if not procs:
            self.kill_at = None


def _read(sel: selectors.BaseSelector, bufs: dict[IO[bytes], CappedBuffer], wait: float) -> bool:
    """Read what is ready within ``wait`` seconds; False when no stream is open any more."""
    if not sel.get_map():
        time.sleep(wait)
        return False
    for key, _ in sel.select(wait):
        f = key.fileobj
        try:
            data = os.read(f.fileno(), 1 << 16)  # type: ignore[union-attr]
        except BlockingIOError:
            continue
        if data:
            bufs[f].add(data)  # type: ignore[index]
        else:
            sel.unregister(f)
    return True


def _drain(bufs: dict[IO[bytes], CappedBuffer], deadline: float) -> None:
    """Read the rest of the output (the writers are dead) until EOF or ``deadline``; close the pipes."""
    sel = selectors.DefaultSelector()
    for f in bufs:
        if not f.closed:
            sel.register(f, selectors.EVENT_READ)
    try:
        while time.monotonic() < deadline and _read(sel, bufs, min(0.1, max(0.0, deadline - time.monotonic()))):
            pass
    finally:
        sel.close()
        for f in bufs:
            f.close()

"""Running a subprocess with a hard time limit: the whole process group is killed on overrun."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from autotune.launch._base import RunResult

_NOISE = ("leaked handle pool objects",)


def clean_stderr(text: str) -> str:
    """Drop MPICH's harmless yaksa 'leaked handle pool objects' warnings."""
    return "\n".join(line for line in text.splitlines() if not any(n in line for n in _NOISE))


def tail(text: str, lines: int = 20) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def run_process(argv: Sequence[str], env: Mapping[str, str], cwd: Path, timeout: float,
                log_prefix: Path | None = None) -> RunResult:
    """Run ``argv`` (no shell) in its own session; on timeout SIGTERM then SIGKILL the whole group."""
    start = time.monotonic()
    try:
        proc = subprocess.Popen(list(argv), cwd=cwd, env=dict(env), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, start_new_session=True)
    except OSError as exc:
        return RunResult(returncode=None, error=f"cannot start {argv[0]!r}: {exc.strerror}", stderr=str(exc))
    timed_out = False
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_group(proc)
        out, err = proc.communicate()
    wall = time.monotonic() - start
    err = clean_stderr(err or "")
    if log_prefix is not None:
        log_prefix.parent.mkdir(parents=True, exist_ok=True)
        log_prefix.with_suffix(".out").write_text(out or "")
        log_prefix.with_suffix(".err").write_text(err)
    result = RunResult(returncode=proc.returncode, stdout=out or "", stderr=err, wall_seconds=wall, timed_out=timed_out)
    if timed_out:
        result.error = f"timed out after {timeout:.0f}s (killed)"
    elif proc.returncode != 0:
        last = tail(err, 1) or tail(out or "", 1)
        result.error = f"exit code {proc.returncode}" + (f": {last}" if last else "")
    return result


def _kill_group(proc: subprocess.Popen[str]) -> None:
    for sig, wait in ((signal.SIGTERM, 3.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue

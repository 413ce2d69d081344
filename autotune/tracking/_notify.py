"""The notification hook: a command run at the end of a campaign or comparison, the summary on its stdin.

The command is split like a shell would (``shlex``) but never run by a shell: no expansion, no
pipes, no injection from the summary. It receives the summary on stdin and in ``AUTOTUNE_SUMMARY``
(first 16 KiB), the outcome in ``AUTOTUNE_STATUS`` and the report path, if any, in ``AUTOTUNE_REPORT``.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

from autotune.errors import ConfigError

ENV_LIMIT = 16 * 1024
TIMEOUT_S = 120.0


def parse_notify(command: str) -> list[str]:
    """The argv of ``--notify``; an empty or unbalanced command is a ConfigError."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise ConfigError(f"--notify: {exc}") from None
    if not argv:
        raise ConfigError("--notify: empty command")
    return argv


def check_notify(command: str) -> list[str]:
    """``--notify`` checked when the command starts, not hours later at the end: an empty or unbalanced
    command, or a program that is not an executable file or on PATH, is a ConfigError."""
    argv = parse_notify(command)
    if shutil.which(argv[0]) is None:
        raise ConfigError(f"--notify: {argv[0]!r} is not an executable program (not found on PATH, or not executable)")
    return argv


def notify(command: str, summary: str, status: str, report: Path | None = None) -> str | None:
    """Run the hook; returns None on success, else a one-line warning (a failing hook never fails the run)."""
    argv = parse_notify(command)
    env = dict(os.environ, AUTOTUNE_SUMMARY=summary[:ENV_LIMIT], AUTOTUNE_STATUS=status,
               AUTOTUNE_REPORT=str(report) if report else "")
    try:
        proc = subprocess.run(argv, input=summary, text=True, env=env, capture_output=True, timeout=TIMEOUT_S,
                              check=False, shell=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"notify: {argv[0]}: {exc}"
    if proc.returncode != 0:
        tail = (proc.stderr or "").strip().splitlines()[-1:] or [""]
        return f"notify: {argv[0]} exited with {proc.returncode} {tail[0]}".rstrip()
    return None

"""Whole campaigns on a Ray cluster through the Ray Jobs API: submit, status, logs, stop.

The campaign file's directory is shipped as the job's working directory (run directories, virtual
environments and VCS folders left out); the cluster needs ``autotune`` installed. Ray's own
authentication is left as the cluster runs it (``RAY_AUTH_MODE``/``RAY_AUTH_TOKEN`` are read by Ray).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

from autotune.errors import ConfigError

EXCLUDES = ["autotune-runs/", ".venv/", ".git/", ".slurm/", "__pycache__/", "*.db", "mlruns/", "mlartifacts/"]
SUBMISSION_RE = re.compile(r"[A-Za-z0-9_.:-]{1,128}")


def client(address: str) -> Any:
    """A ``JobSubmissionClient`` for ``address`` (the dashboard's http://HOST:PORT); one line on failure."""
    try:
        from ray.job_submission import JobSubmissionClient
    except ImportError:
        raise ConfigError("autotune submit needs Ray's job client: pip install 'autotune[ray]'") from None
    try:
        return JobSubmissionClient(address)
    except Exception as exc:  # noqa: BLE001 - connection errors of any kind are one line
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise ConfigError(f"--address: cannot reach the Ray job server at {address!r}: {first}") from None


def submit(address: str, campaign: Path, tune_args: list[str], python: str = "python") -> str:
    """Submit ``autotune tune <campaign> <tune_args>`` with the campaign's directory as working dir."""
    if not campaign.is_file():
        raise ConfigError(f"campaign: {str(campaign)!r} is not a file")
    entry = shlex.join([python, "-m", "autotune.cli", "tune", campaign.name, *tune_args])
    sub = client(address).submit_job(entrypoint=entry, runtime_env={"working_dir": str(campaign.parent.resolve()),
                                                                    "excludes": EXCLUDES},
                                     metadata={"autotune.campaign": campaign.name})
    return str(sub)


def _checked(submission_id: str) -> str:
    if not SUBMISSION_RE.fullmatch(submission_id):
        raise ConfigError(f"submission id {submission_id!r}: expected what `autotune submit` printed (raysubmit_...)")
    return submission_id


def status(address: str, submission_id: str) -> str:
    return str(client(address).get_job_status(_checked(submission_id)).value)


def logs(address: str, submission_id: str) -> str:
    return str(client(address).get_job_logs(_checked(submission_id)))


def stop(address: str, submission_id: str) -> bool:
    return bool(client(address).stop_job(_checked(submission_id)))

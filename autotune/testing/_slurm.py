"""A running single-node Slurm for tests: started with launchers/slurm-local/up.sh when needed."""

from __future__ import annotations

import os
import subprocess

from autotune._paths import REPO_ROOT
from autotune.testing.marks import require_mark


def ensure_local_slurm() -> str:
    """Start (idempotently) the local Slurm and point ``SLURM_CONF`` at it; returns the config path.
    In a test run with the ``autotune.testing.marks`` plugin the test must be marked ``slurm`` (else a RuntimeError,
    before anything starts)."""
    require_mark("slurm", "the local Slurm")
    conf = os.environ.get("SLURM_CONF") or str(REPO_ROOT / ".slurm" / "slurm.conf")
    os.environ["SLURM_CONF"] = conf
    proc = subprocess.run([str(REPO_ROOT / "launchers/slurm-local/up.sh")], capture_output=True, text=True,
                          check=False, timeout=600, env={**os.environ, "SLURM_DIR": os.path.dirname(conf)})
    if proc.returncode != 0:
        raise RuntimeError(f"launchers/slurm-local/up.sh failed: {proc.stderr.strip()[-500:]}")
    return conf


def queued_jobs(name_part: str) -> list[str]:
    """``id|name|state|reason`` of the jobs whose name contains ``name_part`` and that are pending or running.

    ``squeue`` without ``--states`` also lists jobs COMPLETING (ended, Slurm still cleaning up after them,
    for seconds on a loaded node): they are left out, as they hold nothing and will not run again.
    """
    out = subprocess.run(["squeue", "-h", "-o", "%i|%j|%T|%r"], capture_output=True, text=True, check=True).stdout
    return [line for line in out.splitlines() if name_part in line.split("|")[1] and line.split("|")[2] != "COMPLETING"]

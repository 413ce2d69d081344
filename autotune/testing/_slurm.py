"""A running single-node Slurm for tests: started with launchers/slurm-local/up.sh when needed."""

from __future__ import annotations

import os
import subprocess

from autotune._paths import REPO_ROOT


def ensure_local_slurm() -> str:
    """Start (idempotently) the local Slurm and point ``SLURM_CONF`` at it; returns the config path."""
    conf = os.environ.get("SLURM_CONF") or str(REPO_ROOT / ".slurm" / "slurm.conf")
    os.environ["SLURM_CONF"] = conf
    proc = subprocess.run([str(REPO_ROOT / "launchers/slurm-local/up.sh")], capture_output=True, text=True,
                          check=False, timeout=600, env={**os.environ, "SLURM_DIR": os.path.dirname(conf)})
    if proc.returncode != 0:
        raise RuntimeError(f"launchers/slurm-local/up.sh failed: {proc.stderr.strip()[-500:]}")
    return conf

"""Building RunRequests for the launcher tests (tests/launch/) (real system profiles, resolved settings)."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from autotune.hints import resolve
from autotune.launch import AppSpec, RunRequest
from autotune.pattern import IOPattern
from autotune.systems import load_system


def make_requests(tmp: Path, *, system: str = "local", fs: str | None = None, config: Mapping[str, Any] | None = None,
                  command: tuple[str, ...] = (), kernel: str | None = None, ranks: int = 2, nodes: int = 1,
                  reps: int = 1, timeout: float = 60.0, trial: int = 0, campaign: str = "slurmtest",
                  env: Mapping[str, str] | None = None, mpiexec: bool = True,
                  kernel_args: Mapping[str, Any] | None = None) -> list[RunRequest]:
    """``reps`` repetitions of one trial, run dirs ``tmp/runs/trial-N/rep-R``, data ``tmp/data/...``."""
    prof = load_system(system)
    target = prof.filesystem(fs)
    pattern = IOPattern(ranks=ranks, nodes=nodes, bytes_per_rank=1 << 20)
    app = AppSpec(name="app", pattern=pattern, kernel=kernel, args=dict(kernel_args or {}), command=command,
                  mpiexec=mpiexec, env=dict(env or {}))
    cfg = dict(config or {})
    settings = resolve(cfg, prof, target, pattern)
    return [RunRequest(campaign=campaign, trial=trial, repetition=r, app=app, system=prof, fs=target, config=cfg,
                       settings=settings, run_dir=tmp / "runs" / f"trial-{trial:04d}" / f"rep-{r}",
                       data_dir=tmp / "data" / f"t{trial}-r{r}", timeout=timeout)
            for r in range(reps)]


PY = sys.executable

"""Simulated hosts for tests: the cores ``autotune.systems.detect_cores`` finds."""

from __future__ import annotations

import os

import pytest


def simulate_cores(monkeypatch: pytest.MonkeyPatch, cores: int) -> None:
    """Make this process look like a host whose CPU affinity has ``cores`` CPUs (outside any Slurm job)."""
    monkeypatch.delenv("SLURM_CPUS_ON_NODE", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cores)), raising=False)

"""Shared pytest configuration."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    """Register the markers used across the suite."""
    config.addinivalue_line("markers", "slow: takes more than 5 s (real MPI runs, campaigns)")
    config.addinivalue_line("markers", "slurm: needs the local Slurm (brought up by launchers/slurm-local/up.sh)")
    config.addinivalue_line("markers", "mpi: runs real MPI jobs")

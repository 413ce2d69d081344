"""Shared pytest configuration."""

from __future__ import annotations

import pytest

# the slurm and ray marks, their xdist group and the check that a test using either carries its mark
pytest_plugins = ["autotune.testing.marks", "pytester"]


def pytest_configure(config: pytest.Config) -> None:
    """Register the markers used across the suite (``slurm`` and ``ray``: the plugin)."""
    config.addinivalue_line("markers", "slow: takes more than 5 s (real MPI runs, campaigns)")
    config.addinivalue_line("markers", "mpi: runs real MPI jobs")


@pytest.fixture(autouse=True)
def _two_core_host(monkeypatch: pytest.MonkeyPatch) -> None:
    """The built-in ``local`` profile detects the host's cores; the suite's local figures (and the model tests
    written against them) are of the 2-core development machine, so every test sees a 2-core host unless it
    simulates another (``simulate_cores`` in ``autotune.testing``)."""
    from autotune.testing import simulate_cores

    simulate_cores(monkeypatch, 2)

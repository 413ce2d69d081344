"""Shared pytest configuration."""

from __future__ import annotations

import pytest

# markers of tests that use a machine-wide resource: the local Slurm; a local Ray (its nodes take fixed default ports:
# the dashboard agent's 52365, a head's client server 10001)
MACHINE_WIDE = ("slurm", "ray")


def pytest_configure(config: pytest.Config) -> None:
    """Register the markers used across the suite."""
    config.addinivalue_line("markers", "slow: takes more than 5 s (real MPI runs, campaigns)")
    config.addinivalue_line("markers", "slurm: needs the local Slurm (brought up by launchers/slurm-local/up.sh)")
    config.addinivalue_line("markers", "ray: starts a local Ray instance or cluster")
    config.addinivalue_line("markers", "mpi: runs real MPI jobs")
    config.addinivalue_line("markers", "xdist_group(name): pytest-xdist runs a group's tests on one worker")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Groups for pytest-xdist's ``--dist loadgroup`` (``make test`` runs two workers): a file's tests stay on one
    worker, so its module fixtures start once, and every test of a machine-wide service runs on one worker, one
    at a time. Runs before xdist reads the groups (``tryfirst``); without xdist the marks do nothing."""
    for item in items:
        if item.get_closest_marker("xdist_group"):
            continue
        shared = any(item.get_closest_marker(m) for m in MACHINE_WIDE)
        group = "machine-wide" if shared else item.path.relative_to(config.rootpath).as_posix()
        item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture(autouse=True)
def _two_core_host(monkeypatch: pytest.MonkeyPatch) -> None:
    """The built-in ``local`` profile detects the host's cores; the suite's local figures (and the model tests
    written against them) are of the 2-core development machine, so every test sees a 2-core host unless it
    simulates another (``simulate_cores`` in ``autotune.testing``)."""
    from autotune.testing import simulate_cores

    simulate_cores(monkeypatch, 2)

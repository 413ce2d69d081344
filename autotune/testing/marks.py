"""A pytest plugin: the tests of a machine-wide service (the local Slurm, a local Ray) run one at a time, and a test
that uses one must carry its mark.

``make test`` runs two pytest-xdist workers (``--dist loadgroup``). The local Slurm is one set of daemons and a local
Ray takes fixed default ports (the dashboard agent's 52365, a head's client server 10001), so every test marked
``slurm`` or ``ray`` is put in one group, which xdist runs on one worker; every other test stays with its file's
group, so a module's fixtures start once. A test that starts a service without the mark would run beside another
one and fail at random (a port taken, a queue full); this plugin makes the omission fail every time instead:

- before each test's setup it records the test's marks in ``MARKS_ENV``, which ``ensure_local_slurm`` reads:
  starting the local Slurm from an unmarked test (or from a fixture it is the first to request) is a RuntimeError
  naming the test and the mark, before anything starts;
- after each test's body it checks whether the test (or a fixture it set up) initialised Ray in this process; if so
  and the test is not marked ``ray``, the test fails. Ray started by a child process (``ray start``, an
  ``autotune`` command run as a subprocess) is not seen.

Enable it with ``pytest_plugins = ["autotune.testing.marks"]`` in the root ``conftest.py``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Generator

import pytest

MACHINE_WIDE = {"slurm": "needs the local Slurm (brought up by launchers/slurm-local/up.sh)",
                "ray": "starts a local Ray instance or cluster"}
MARKS_ENV = "AUTOTUNE_TEST_MARKS"  # the running test's machine-wide marks, comma-separated ('' for none)
_RAY_BEFORE = pytest.StashKey[bool]()


def current_marks() -> set[str] | None:
    """The running test's machine-wide marks, or None outside a pytest run with this plugin."""
    value = os.environ.get(MARKS_ENV)
    return None if value is None else {m for m in value.split(",") if m}


def require_mark(mark: str, what: str) -> None:
    """Raise a RuntimeError when a test run with this plugin uses ``what`` without carrying ``mark``."""
    marks = current_marks()
    if marks is not None and mark not in marks:
        test = os.environ.get("PYTEST_CURRENT_TEST", "this test").split(" (")[0]
        raise RuntimeError(f"{test} uses {what} but is not marked @pytest.mark.{mark}: {_WHY}")


_WHY = "a machine-wide service's tests run one at a time only when marked (autotune.testing.marks)"


def _marks_of(item: pytest.Item) -> list[str]:
    return [m for m in MACHINE_WIDE if item.get_closest_marker(m)]


def _ray_initialised() -> bool:
    ray = sys.modules.get("ray")
    return bool(ray is not None and ray.is_initialized())


def pytest_configure(config: pytest.Config) -> None:
    for mark, meaning in MACHINE_WIDE.items():
        config.addinivalue_line("markers", f"{mark}: {meaning}")
    config.addinivalue_line("markers", "xdist_group(name): pytest-xdist runs a group's tests on one worker")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The xdist groups: ``machine-wide`` for every marked test, else the test's file. Runs before xdist reads the
    groups (``tryfirst``); without xdist the groups do nothing."""
    for item in items:
        if item.get_closest_marker("xdist_group"):
            continue
        group = "machine-wide" if _marks_of(item) else item.path.relative_to(config.rootpath).as_posix()
        item.add_marker(pytest.mark.xdist_group(group))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Before any fixture of the test is set up: its marks, and whether Ray already runs in this process."""
    os.environ[MARKS_ENV] = ",".join(_marks_of(item))
    item.stash[_RAY_BEFORE] = _ray_initialised()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    """After the test body, while its fixtures still run: Ray initialised by an unmarked test fails the test."""
    result = yield
    if not item.stash.get(_RAY_BEFORE, True) and _ray_initialised() and "ray" not in _marks_of(item):
        raise RuntimeError(f"{item.nodeid} initialised Ray but is not marked @pytest.mark.ray: {_WHY}")
    return result


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    os.environ.pop(MARKS_ENV, None)

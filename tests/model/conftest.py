"""Fixtures for the model tests: the cited sources' system profiles."""

from __future__ import annotations

import pytest

from autotune.model import _scenarios as scenarios
from autotune.systems import SystemProfile


@pytest.fixture(scope="session")
def theta() -> SystemProfile:
    return scenarios.system("theta")


@pytest.fixture(scope="session")
def cori() -> SystemProfile:
    return scenarios.system("cori")


@pytest.fixture(scope="session")
def shaheen() -> SystemProfile:
    return scenarios.system("shaheen2")

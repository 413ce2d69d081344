"""Fixtures for the model tests: the cited sources' system profiles."""

from __future__ import annotations

import pytest

from autotune.model import _scenarios as S
from autotune.systems import SystemProfile


@pytest.fixture(scope="session")
def theta() -> SystemProfile:
    return S.system("theta")


@pytest.fixture(scope="session")
def cori() -> SystemProfile:
    return S.system("cori")


@pytest.fixture(scope="session")
def shaheen() -> SystemProfile:
    return S.system("shaheen2")

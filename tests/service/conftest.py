"""Fixtures of the service's tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from autotune.testing import production_campaign


@pytest.fixture
def campaign(tmp_path: Path) -> Path:
    """The example model campaign, its work directory in ``tmp_path``, no tracking."""
    return production_campaign(tmp_path)

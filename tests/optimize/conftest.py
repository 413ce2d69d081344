"""Shared fixtures of the optimizer tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from autotune.campaign import Runtime
from autotune.space import BoundSpace
from autotune.testing import wrf_model_campaign

METRIC = "write_bandwidth_mib_s"


@pytest.fixture
def wrf_space(tmp_path: Path) -> BoundSpace:
    """WRF-CHEM on Shaheen II Lustre (KAUST Shaheen II training): the model's ridge is aggregators = stripe count."""
    return Runtime.build(wrf_model_campaign(tmp_path, objective={"metric": METRIC})).space

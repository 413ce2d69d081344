"""Shared fixtures of the optimizer tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from autotune.campaign import Runtime, parse_campaign
from autotune.space import BoundSpace

METRIC = "write_bandwidth_mib_s"


@pytest.fixture
def wrf_space(tmp_path: Path) -> BoundSpace:
    """WRF-CHEM on Shaheen II Lustre (seed 000): the model's ridge is aggregators = stripe count."""
    data: dict[str, Any] = {
        "name": "wrf", "system": "shaheen2", "target": {"filesystem": "scratch"},
        "app": {"command": ["wrf"], "ranks": 1280, "nodes": 40, "metric": {"extractor": "json"},
                "pattern": {"bytes_per_rank": 1134375, "transfer_size": 11343, "layout": "strided",
                            "library": "pnetcdf"}},
        "space": {"use": "lustre-cray", "only": ["lustre.stripe_count", "lustre.stripe_size", "mpiio.cb_nodes",
                                                  "mpiio.romio_cb_write"]},
        "objective": {"metric": METRIC}, "launcher": {"name": "model"}, "storage": ":memory:",
        "tracking": {"enabled": False}, "workdir": str(tmp_path / "work"),
    }
    return Runtime.build(parse_campaign(data, tmp_path)).space

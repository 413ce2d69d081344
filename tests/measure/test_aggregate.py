"""The aggregate of N and the rule that picks it per target."""

from __future__ import annotations

from pathlib import Path

import pytest

from autotune.campaign import parse_campaign
from autotune.measure import aggregate, aggregate_label, default_aggregate


def test_best_where_interference_is_one_sided_median_on_node_local_storage() -> None:
    assert [default_aggregate(k) for k in ("lustre", "datawarp", "rabbit", "posix", "nvme")] == \
        ["best", "best", "best", "median", "median"]
    assert aggregate([3.0, 1.0, 2.0], "best", maximize=False) == 1.0 and aggregate_label("median", 3) == "median of 3"


@pytest.mark.parametrize(("system", "given", "expected"), [
    ("local", None, "median"), ("theta", None, "best"), ("theta", "median", "median"), ("local", "auto", "median")])
def test_a_campaign_gets_its_targets_aggregate_unless_it_names_one(system: str, given: str | None, expected: str,
                                                                     tmp_path: Path) -> None:
    data = {"name": "c", "app": {"kernel": "ior", "ranks": 2}, "system": system, "workdir": str(tmp_path),
            "objective": {"metric": "write_bandwidth_mib_s", **({"aggregate": given} if given else {})}}
    data["space"] = {"use": "local-romio" if system == "local" else "lustre-cray"}
    assert parse_campaign(data, tmp_path).objective.aggregate == expected

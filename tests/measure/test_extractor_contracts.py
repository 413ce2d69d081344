"""Every registered metric extractor through autotune.testing.ExtractorContract."""

from __future__ import annotations

import json

import pytest

from autotune.launch import RunResult
from autotune.measure import EXTRACTORS, BaseExtractor, get_extractor
from autotune.testing import ExtractorContract


def test_every_registered_extractor_has_a_contract_here() -> None:
    assert {"json", "regex", "walltime"} <= set(EXTRACTORS.names())


class TestJsonContract(ExtractorContract):
    @pytest.fixture
    def extractor(self) -> BaseExtractor:
        return get_extractor({"extractor": "json"})

    def good(self) -> tuple[RunResult, str, float]:
        rec = {"autotune_record": 1, "metrics": {"bandwidth_mib_s": 812.5, "seconds": 2.0}}
        return RunResult(returncode=0, stdout="warming up\n" + json.dumps(rec) + "\n"), "bandwidth_mib_s", 812.5


class TestRegexContract(ExtractorContract):
    @pytest.fixture
    def extractor(self) -> BaseExtractor:
        return get_extractor({"extractor": "regex", "pattern": r"^Max Write: ([0-9.]+) MiB/sec"})

    def good(self) -> tuple[RunResult, str, float]:
        out = "IOR-3.3.0\nMax Write: 1520.25 MiB/sec (1594.10 MB/sec)\n"
        return RunResult(returncode=0, stdout=out), "bandwidth_mib_s", 1520.25


class TestWallTimeContract(ExtractorContract):
    @pytest.fixture
    def extractor(self) -> BaseExtractor:
        return get_extractor({"extractor": "walltime", "bytes": "64MiB"})

    def good(self) -> tuple[RunResult, str, float]:
        return RunResult(returncode=0, wall_seconds=2.0), "bandwidth_mib_s", 32.0

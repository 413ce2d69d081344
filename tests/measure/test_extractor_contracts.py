"""Every registered metric extractor through autotune.testing.ExtractorContract."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from autotune.launch import RunResult
from autotune.measure import EXTRACTORS, BaseExtractor, get_extractor
from autotune.testing import ExtractorContract

FIXTURES = Path(__file__).parent / "fixtures"


def test_every_registered_extractor_has_a_contract_here() -> None:
    covered = {cls.__name__.removeprefix("Test").removesuffix("Contract").lower()
               for cls in globals().values() if isinstance(cls, type) and issubclass(cls, ExtractorContract)}
    assert set(EXTRACTORS.names()) <= covered


class TestJsonContract(ExtractorContract):
    @pytest.fixture
    def extractor(self) -> BaseExtractor:
        return get_extractor("json")

    def good(self) -> tuple[RunResult, str, float]:
        rec = {"autotune_record": 1, "metrics": {"bandwidth_mib_s": 812.5, "seconds": 2.0}}
        return RunResult(returncode=0, stdout="warming up\n" + json.dumps(rec) + "\n"), "bandwidth_mib_s", 812.5


class TestRegexContract(ExtractorContract):
    @pytest.fixture
    def extractor(self) -> BaseExtractor:
        return get_extractor("regex", {"pattern": r"^Max Write: ([0-9.]+) MiB/sec"})

    def good(self) -> tuple[RunResult, str, float]:
        out = "IOR-3.3.0\nMax Write: 1520.25 MiB/sec (1594.10 MB/sec)\n"
        return RunResult(returncode=0, stdout=out), "bandwidth_mib_s", 1520.25


class TestWallTimeContract(ExtractorContract):
    @pytest.fixture
    def extractor(self) -> BaseExtractor:
        return get_extractor("walltime", {"bytes": "64MiB"})

    def good(self) -> tuple[RunResult, str, float]:
        return RunResult(returncode=0, wall_seconds=2.0), "bandwidth_mib_s", 32.0


class _PresetContract(ExtractorContract):
    """A benchmark preset reading one of its recorded outputs (tests/measure/fixtures/SOURCES.md)."""

    tool, fixture, metric, value = "", "", "", 0.0

    @pytest.fixture
    def extractor(self) -> BaseExtractor:
        return get_extractor(self.tool)

    def good(self) -> tuple[RunResult, str, float]:
        return RunResult(returncode=0, stdout=(FIXTURES / self.fixture).read_text()), self.metric, self.value


class TestIorContract(_PresetContract):
    tool, fixture, metric, value = "ior", "ior-4.0.0.txt", "write_bandwidth_mib_s", 22518.33


class TestMdtestContract(_PresetContract):
    tool, fixture, metric, value = "mdtest", "mdtest-4.0.0.txt", "file_creation_ops_per_sec", 25102.771


class TestH5benchContract(_PresetContract):
    tool, fixture, metric, value = "h5bench", "h5bench-1.4-write.txt", "write_seconds", 6.217


class TestFioContract(_PresetContract):
    tool, fixture, metric, value = "fio", "fio-3.33-text.txt", "write_bandwidth_mib_s", 2359.0


class TestDarshanContract(ExtractorContract):
    """The Darshan-log extractor on a real log shipped inside PyDarshan, left where a run would leave it."""

    @pytest.fixture(autouse=True)
    def _run_dir(self, tmp_path: Path) -> None:
        self.run_dir = tmp_path

    @pytest.fixture
    def extractor(self) -> BaseExtractor:
        pytest.importorskip("darshan", reason="PyDarshan is the 'darshan' extra: pip install 'autotune[darshan]'")
        return get_extractor("darshan")

    def good(self) -> tuple[RunResult, str, float]:
        import darshan

        from autotune.measure._darshan import log_metrics

        log = Path(os.path.dirname(darshan.__file__)) / "examples" / "example_logs" / "ior_hdf5_example.darshan"
        shutil.copy(log, self.run_dir / "app.darshan")
        metric, value = sorted(log_metrics(log).items())[0]
        result = RunResult(returncode=0, stdout="", wall_seconds=3.0)
        result.info["run_dir"] = str(self.run_dir)
        return result, metric, value

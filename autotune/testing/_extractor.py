"""The contract every metric extractor passes (tests/measure/test_extractor_contracts.py, one class each)."""

from __future__ import annotations

import math

import pytest

from autotune.errors import ConfigError
from autotune.launch import RunResult
from autotune.measure import EXTRACTORS, BaseExtractor, get_extractor

GARBAGE = ["", "\n\n", "not json {", "{\"metrics\": [1, 2]}", "{" * 5000, "\x00\x01binary\xff", "nan inf -1e999",
           "{\"metrics\": {\"bandwidth_mib_s\": \"fast\"}}", "x" * 100_000]


class ExtractorContract:
    """Subclass; provide ``extractor`` (a built ``BaseExtractor``) and ``good()`` -> (result, metric, value)."""

    def good(self) -> tuple[RunResult, str, float]:
        raise NotImplementedError

    def test_is_registered_and_built_by_name(self, extractor: BaseExtractor) -> None:
        assert EXTRACTORS.get(extractor.name) is type(extractor)
        again = get_extractor(extractor.name, {k: v for k, v in extractor.options.items() if k != "extractor"})
        assert type(again) is type(extractor)

    def test_reads_the_value(self, extractor: BaseExtractor) -> None:
        result, metric, value = self.good()
        m = extractor.extract(result, metric)
        assert m.error is None and m.value == pytest.approx(value)

    @pytest.mark.parametrize("text", GARBAGE)
    def test_bad_output_never_raises(self, extractor: BaseExtractor, text: str) -> None:
        _, metric, _ = self.good()
        m = extractor.extract(RunResult(returncode=0, stdout=text, stderr=text, wall_seconds=0.5), metric)
        if m.value is None:
            assert m.error and "\n" not in m.error
        else:
            assert isinstance(m.value, float) and math.isfinite(m.value)

    def test_unknown_option_is_one_line(self, extractor: BaseExtractor) -> None:
        with pytest.raises(ConfigError, match="unknown key 'colour'") as err:
            type(extractor)({**extractor.options, "colour": "blue"})
        assert "\n" not in str(err.value)

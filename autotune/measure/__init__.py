"""Measurements: metric extractors, best-of-N, and which hints took effect."""

from autotune.measure._aggregate import AGGREGATES, aggregate, spread
from autotune.measure._extract import (
    BaseExtractor,
    JsonExtractor,
    Measurement,
    RegexExtractor,
    WallTimeExtractor,
    find_record,
    get_extractor,
    register_extractor,
)
from autotune.measure._verify import count_aggregators, verify_hints

# Presets and the Darshan-log extractor register themselves (extractor: ior | mdtest | h5bench | fio | darshan).
from autotune.measure import _bench, _darshan, _ior  # noqa: F401  isort: skip
from autotune.measure._darshan import check_darshan_header, log_metrics  # isort: skip

__all__ = [
    "AGGREGATES",
    "BaseExtractor",
    "JsonExtractor",
    "Measurement",
    "RegexExtractor",
    "WallTimeExtractor",
    "aggregate",
    "check_darshan_header",
    "count_aggregators",
    "find_record",
    "get_extractor",
    "log_metrics",
    "register_extractor",
    "spread",
    "verify_hints",
]

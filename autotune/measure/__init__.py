"""Measurements: metric extractors, best-of-N, and which hints took effect."""

from autotune.measure._aggregate import AGGREGATES, aggregate, spread
from autotune.measure._craystats import add_mpiio_stats, parse_mpiio_stats
from autotune.measure._extract import (
    EXTRACTORS,
    BaseExtractor,
    JsonExtractor,
    Measurement,
    RegexExtractor,
    WallTimeExtractor,
    find_record,
    get_extractor,
)
from autotune.measure._verify import count_aggregators, verify_hints

__all__ = [
    "AGGREGATES", "EXTRACTORS", "BaseExtractor", "JsonExtractor", "Measurement", "RegexExtractor", "WallTimeExtractor",
    "add_mpiio_stats", "aggregate", "count_aggregators", "find_record", "get_extractor", "parse_mpiio_stats", "spread",
    "verify_hints",
]

"""Measurements: metric extractors, best-of-N, and which hints took effect."""

from autotune.measure._aggregate import AGGREGATES, aggregate, spread
from autotune.measure._bootstrap import advantage, interval, median_margin, paired_margin
from autotune.measure._extract import (
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
    "AGGREGATES", "BaseExtractor", "JsonExtractor", "Measurement", "RegexExtractor", "WallTimeExtractor",
    "advantage", "aggregate", "count_aggregators", "find_record", "get_extractor", "interval", "median_margin", "paired_margin",
    "spread",
    "verify_hints",
]

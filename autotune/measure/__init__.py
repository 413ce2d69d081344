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
)
from autotune.measure._hintsdisplay import parse_hints_blocks, parse_hints_display, strip_hints_display
from autotune.measure._units import CANONICAL, UNITS, MetricUnit, check_direction, metric_unit, to_canonical
from autotune.measure._verify import count_aggregators, verify_hints

__all__ = [
    "AGGREGATES",
    "CANONICAL",
    "UNITS",
    "BaseExtractor",
    "JsonExtractor",
    "Measurement",
    "MetricUnit",
    "RegexExtractor",
    "WallTimeExtractor",
    "aggregate",
    "check_direction",
    "count_aggregators",
    "find_record",
    "get_extractor",
    "metric_unit",
    "parse_hints_blocks",
    "parse_hints_display",
    "spread",
    "strip_hints_display",
    "to_canonical",
    "verify_hints",
]

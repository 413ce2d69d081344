"""Measurements: metric extractors, the aggregate of N repetitions, margins, and which hints took effect."""

from autotune.measure._aggregate import AGGREGATES, ONE_SIDED_KINDS, aggregate, aggregate_label, default_aggregate, spread
from autotune.measure._bootstrap import advantage, interval
from autotune.measure._craystats import add_mpiio_stats, parse_mpiio_stats
from autotune.measure._effect import STATES, Evidence, library_of, not_in_effect, took_effect, verify_run, verify_settings
from autotune.measure._extract import (
    EXTRACTORS,
    BaseExtractor,
    JsonExtractor,
    Measurement,
    RegexExtractor,
    WallTimeExtractor,
    find_record,
    get_extractor,
    register_extractor,
)
from autotune.measure._hintsdisplay import parse_hints_blocks, parse_hints_display, strip_hints_display
from autotune.measure._margin import (
    ALPHA,
    INTERIM,
    TRIM,
    Estimate,
    block_differences,
    combine,
    differences,
    looks,
    margin,
    paired,
    spend,
    trimmed,
    unpaired,
)
from autotune.measure._plausible import MIN_TRIALS, implausible, implausible_given
from autotune.measure._units import CANONICAL, UNITS, MetricUnit, check_direction, metric_unit, to_canonical
from autotune.measure._verify import count_aggregators, verify_hints

# Presets and the Darshan-log extractor register themselves (extractor: ior | mdtest | h5bench | fio | darshan).
from autotune.measure import _bench, _darshan, _ior  # noqa: F401  isort: skip
from autotune.measure._darshan import check_darshan_header, log_metrics  # isort: skip

__all__ = [
    "AGGREGATES",
    "ALPHA",
    "CANONICAL",
    "EXTRACTORS",
    "INTERIM",
    "MIN_TRIALS",
    "ONE_SIDED_KINDS",
    "STATES",
    "TRIM",
    "UNITS",
    "BaseExtractor",
    "Estimate",
    "Evidence",
    "JsonExtractor",
    "Measurement",
    "MetricUnit",
    "RegexExtractor",
    "WallTimeExtractor",
    "add_mpiio_stats",
    "advantage",
    "aggregate",
    "aggregate_label",
    "block_differences",
    "check_darshan_header",
    "check_direction",
    "combine",
    "count_aggregators",
    "default_aggregate",
    "differences",
    "find_record",
    "get_extractor",
    "implausible",
    "implausible_given",
    "interval",
    "library_of",
    "log_metrics",
    "looks",
    "margin",
    "metric_unit",
    "not_in_effect",
    "paired",
    "parse_hints_blocks",
    "parse_hints_display",
    "parse_mpiio_stats",
    "register_extractor",
    "spend",
    "spread",
    "strip_hints_display",
    "to_canonical",
    "took_effect",
    "trimmed",
    "unpaired",
    "verify_hints",
    "verify_run",
    "verify_settings",
]

"""Measurements: metric extractors, the aggregate of N repetitions, margins, and which hints took effect."""

from autotune.measure._aggregate import AGGREGATES, ONE_SIDED_KINDS, aggregate, aggregate_label, default_aggregate, spread
from autotune.measure._bootstrap import BOOTSTRAP, advantage, interval
from autotune.measure._craystats import add_mpiio_stats, parse_mpiio_stats
from autotune.measure._effect import (
    OMPIO_MCA,
    STATES,
    Evidence,
    library_of,
    not_in_effect,
    took_effect,
    verify_run,
    verify_settings,
)
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
from autotune.measure._sanity import metric_problem
from autotune.measure._units import CANONICAL, UNITS, MetricUnit, check_direction, metric_unit, to_canonical
from autotune.measure._verify import count_aggregators, verify_hints

from autotune.measure._darshan import check_darshan_header, log_metrics  # isort: skip
from autotune.measure._darshanfile import ReadFailed, in_child, plain_copy, what_is_wrong  # isort: skip

__all__ = [
    "AGGREGATES",
    "ALPHA",
    "BOOTSTRAP",
    "CANONICAL",
    "EXTRACTORS",
    "INTERIM",
    "MIN_TRIALS",
    "OMPIO_MCA",
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
    "ReadFailed",
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
    "in_child",
    "interval",
    "library_of",
    "log_metrics",
    "looks",
    "margin",
    "metric_problem",
    "metric_unit",
    "not_in_effect",
    "paired",
    "parse_hints_blocks",
    "parse_hints_display",
    "parse_mpiio_stats",
    "plain_copy",
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
    "what_is_wrong",
]

"""What a metric measures: its kind (bandwidth, time, score), its unit, and the canonical units MiB/s and s.

A metric's value is stored in canonical units (bandwidth in MiB/s, time in seconds; a score as is), so
comparisons across campaigns hold whatever unit an application prints. The kind decides the direction:
a bandwidth is maximised, a time minimised; a unitless score needs an explicit direction.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from autotune.errors import ConfigError

BANDWIDTH, TIME, RATE, SCORE = "bandwidth", "time", "rate", "score"
CANONICAL = {BANDWIDTH: "MiB/s", TIME: "s", RATE: "ops/s", SCORE: ""}
DIRECTION = {BANDWIDTH: "maximize", TIME: "minimize", RATE: "maximize"}
_MIB = float(2**20)
# unit -> (kind, factor to the canonical unit)
UNITS: dict[str, tuple[str, float]] = {
    "B/s": (BANDWIDTH, 1 / _MIB), "KB/s": (BANDWIDTH, 1e3 / _MIB), "KiB/s": (BANDWIDTH, 1 / 1024),
    "MB/s": (BANDWIDTH, 1e6 / _MIB), "MiB/s": (BANDWIDTH, 1.0), "GB/s": (BANDWIDTH, 1e9 / _MIB),
    "GiB/s": (BANDWIDTH, 1024.0), "TB/s": (BANDWIDTH, 1e12 / _MIB), "TiB/s": (BANDWIDTH, 1024.0**2),
    "ops/s": (RATE, 1.0), "s": (TIME, 1.0), "ms": (TIME, 1e-3), "us": (TIME, 1e-6), "min": (TIME, 60.0), "h": (TIME, 3600.0),
    "score": (SCORE, 1.0),
}
# spellings seen in program output -> the unit above (matched case-sensitively first, then folded)
_ALIASES = {"sec": "s", "secs": "s", "second": "s", "seconds": "s", "msec": "ms", "µs": "us", "usec": "us",
            "mins": "min", "minutes": "min", "minute": "min", "MB/sec": "MB/s", "MiB/sec": "MiB/s",
            "GB/sec": "GB/s", "GiB/sec": "GiB/s", "KB/sec": "KB/s", "kB/s": "KB/s", "KiB/sec": "KiB/s",
            "MBps": "MB/s", "GBps": "GB/s", "MiBps": "MiB/s", "IOPS": "ops/s", "iops": "ops/s",
            "op/s": "ops/s", "ops/sec": "ops/s"}
_UNIT_AFTER = re.compile(r"^\s*\)?\s*\[?\s*([A-Za-zµ]+(?:/s(?:ec)?|ps)?)\b\]?")


@dataclass(frozen=True)
class MetricUnit:
    """A metric's kind and the unit its raw values are in (None: not declared)."""

    kind: str | None
    unit: str | None = None

    @property
    def canonical(self) -> str:
        return CANONICAL.get(self.kind or "", "")

    def describe(self) -> str:
        if self.kind is None:
            return "of unknown kind"
        return f"a {self.kind}" + (f" in {self.unit}" if self.unit and self.kind != SCORE else "")


def unit_name(value: object, where: str) -> str:
    """The unit ``value`` declares (``"MB/sec"`` -> ``"MB/s"``); anything else is a one-line ConfigError."""
    text = str(value).strip()
    unit = text if text in UNITS else _ALIASES.get(text)
    if unit is None:
        raise ConfigError(f"{where}: {value!r} is not a unit (expected one of {', '.join(UNITS)})")
    return unit


def parse_unit(value: object, where: str) -> tuple[str, float]:
    """``(kind, factor to canonical)`` for a declared unit such as ``"MB/s"``, ``"ms"`` or ``"score"``."""
    return UNITS[unit_name(value, where)]


def to_canonical(value: float, unit: str) -> float:
    return value * UNITS[unit][1]


def unit_in_text(after: str) -> str | None:
    """The unit printed right after a captured number (``" MB/s, 3 files"`` -> ``"MB/s"``), or None."""
    m = _UNIT_AFTER.match(after)
    if not m:
        return None
    word = m.group(1)
    unit = word if word in UNITS else _ALIASES.get(word)
    if unit is None:
        folded = {k.lower(): k for k in (*UNITS, *_ALIASES)}.get(word.lower())
        unit = folded if folded in UNITS else _ALIASES.get(folded or "")
    return unit if unit != "score" else None


def kind_from_name(metric: str) -> str | None:
    """The kind a metric's name says: ``*bandwidth*``/``*_mib_s`` a bandwidth, ``*iops*``/``*_per_s``/``*ops_s``
    a rate (operations per second: maximised, never a time), ``seconds``/``*time*``/``*_s`` a time."""
    name = metric.lower()
    if "bandwidth" in name or re.search(r"(^|_)(k|m|g|t)?i?b_s$|(^|_)bw($|_)|throughput", name):
        return BANDWIDTH
    if re.search(r"(^|_)iops($|_)|(^|_)per_(s|sec|second)($|_)|(^|_)ops_s(ec)?$|(^|_)ops_per_", name):
        return RATE
    if re.search(r"(^|_)(seconds|secs|time|elapsed|duration|s|ms|us)$|^(seconds|time)(_|$)", name):
        return TIME
    return None


def metric_unit(options: dict[str, object], metric: str, where: str = "app.metric") -> MetricUnit:
    """What ``metric`` read with extractor ``options`` measures; a declared unit that contradicts the
    metric's name (a ``seconds`` label on an MB/s capture) is a one-line ConfigError naming both."""
    by_name = kind_from_name(metric)
    if "unit" in options:
        unit = unit_name(options["unit"], f"{where}.unit")
        kind = UNITS[unit][0]
        if by_name is not None and kind != SCORE and by_name != kind:
            raise ConfigError(f"objective.metric: {metric!r} names a {by_name}, but {where}.unit {unit!r} is a "
                              f"{kind}: rename the metric or fix the unit")
        return MetricUnit(kind, unit)
    if by_name is not None:
        return MetricUnit(by_name, CANONICAL[by_name] if options.get("extractor", "json") != "regex" else None)
    return MetricUnit(None)


def check_direction(mu: MetricUnit, metric: str, direction: str | None) -> str:
    """The objective's direction: the given one if it fits the kind, else a one-line ConfigError."""
    wanted = DIRECTION.get(mu.kind or "")
    if direction is None:
        if wanted is None:
            raise ConfigError(f"objective.direction: required for {metric!r}, {mu.describe()} (say maximize or "
                              "minimize, or declare app.metric.unit: MB/s, MiB/s, GB/s, s, ms, ... or score)")
        return wanted
    if direction not in ("maximize", "minimize"):
        raise ConfigError(f"objective.direction: {direction!r} is not one of maximize, minimize")
    if wanted is not None and direction != wanted:
        worst = "slowest" if mu.kind in (BANDWIDTH, RATE) else "longest"
        raise ConfigError(f"objective.direction: {direction!r} on {metric!r}, {mu.describe()}, tunes for the {worst} "
                          f"configuration: use {wanted} (or leave direction out)")
    return direction

"""Metric extractors: turn a run's output into the objective's value (kernel JSON, regex, wall time)."""

from __future__ import annotations

import abc
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from autotune._yaml import check_keys
from autotune.errors import ConfigError, RegistryError
from autotune.launch import RunResult
from autotune.units import parse_size


@dataclass
class Measurement:
    """One repetition's figures: the objective ``value`` (None when it could not be read) and the rest."""

    value: float | None
    metrics: dict[str, float] = field(default_factory=dict)
    record: dict[str, Any] | None = None
    hints_in_effect: dict[str, str] = field(default_factory=dict)
    hints_not_in_effect: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


class BaseExtractor(abc.ABC):
    """Reads the objective metric from a finished, successful run. Never raises on bad output:
    returns a Measurement with ``value=None`` and ``error`` saying what was missing."""

    name: ClassVar[str] = ""
    option_keys: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, options: Mapping[str, Any] | None = None, where: str = "app.metric") -> None:
        self.options = check_keys(dict(options or {}), self.option_keys | {"extractor"}, where)
        self.where = where

    @abc.abstractmethod
    def extract(self, result: RunResult, metric: str) -> Measurement:
        """The measurement of ``metric`` in ``result``."""


def find_record(text: str) -> dict[str, Any] | None:
    """The last JSON object line of ``text`` (a kernel prints exactly one)."""
    for line in reversed(text.splitlines()):
        line = line.strip()
        if line.startswith("{") and line.endswith("}"):
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(obj, dict):
                return obj
    return None


class JsonExtractor(BaseExtractor):
    """The last JSON line on stdout; the metric is ``record['metrics'][metric]``, or ``field`` (a dotted path)."""

    name: ClassVar[str] = "json"
    option_keys: ClassVar[frozenset[str]] = frozenset({"field"})

    def extract(self, result: RunResult, metric: str) -> Measurement:
        record = find_record(result.stdout)
        if record is None:
            return Measurement(None, error="no JSON record on stdout")
        metrics = {k: float(v) for k, v in (record.get("metrics") or {}).items() if isinstance(v, (int, float))}
        path = str(self.options.get("field", ""))
        value: Any = None
        if path:
            value = record
            for part in path.split("."):
                value = value.get(part) if isinstance(value, dict) else None
        else:
            value = metrics.get(metric, record.get(metric))
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            return Measurement(None, metrics, record, error=f"metric {path or metric!r} not in the JSON record")
        return Measurement(float(value), metrics, record, dict(record.get("hints_in_effect") or {}),
                           dict(record.get("hints_not_in_effect") or {}))


class RegexExtractor(BaseExtractor):
    """``pattern`` with one group, searched in stdout (``stream: stderr|both`` to change); the last match,
    or their ``sum``/``max`` (``aggregate``), times ``scale``."""

    name: ClassVar[str] = "regex"
    option_keys: ClassVar[frozenset[str]] = frozenset({"pattern", "stream", "aggregate", "scale"})

    def __init__(self, options: Mapping[str, Any] | None = None, where: str = "app.metric") -> None:
        super().__init__(options, where)
        pattern = self.options.get("pattern")
        if not isinstance(pattern, str):
            raise ConfigError(f"{where}.pattern: a regular expression with one group is required")
        try:
            self.regex = re.compile(pattern, re.MULTILINE)
        except re.error as exc:
            raise ConfigError(f"{where}.pattern: {pattern!r} is not a valid regular expression ({exc})") from None
        if self.regex.groups != 1:
            raise ConfigError(f"{where}.pattern: {pattern!r} must have exactly one group, has {self.regex.groups}")
        if self.options.get("stream", "stdout") not in ("stdout", "stderr", "both"):
            raise ConfigError(f"{where}.stream: {self.options['stream']!r} is not one of stdout, stderr, both")
        if self.options.get("aggregate", "last") not in ("last", "sum", "max", "min"):
            raise ConfigError(f"{where}.aggregate: {self.options['aggregate']!r} is not one of last, sum, max, min")
        scale = self.options.get("scale", 1.0)
        if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not 0 < scale < float("inf"):
            raise ConfigError(f"{where}.scale: {scale!r} is not a positive number")

    def extract(self, result: RunResult, metric: str) -> Measurement:
        stream = self.options.get("stream", "stdout")
        text = {"stdout": result.stdout, "stderr": result.stderr}.get(stream, result.stdout + "\n" + result.stderr)
        found = []
        for m in self.regex.finditer(text):
            try:
                found.append(float(m.group(1)))
            except ValueError:
                continue
        if not found:
            return Measurement(None, error=f"pattern {self.regex.pattern!r} not found in {stream}")
        agg = self.options.get("aggregate", "last")
        value = {"last": found[-1], "sum": sum(found), "max": max(found), "min": min(found)}[agg]
        value *= float(self.options.get("scale", 1.0))
        return Measurement(value, {metric: value})


class WallTimeExtractor(BaseExtractor):
    """The run's wall time in seconds (``seconds``); with ``bytes`` also ``bandwidth_mib_s``."""

    name: ClassVar[str] = "walltime"
    option_keys: ClassVar[frozenset[str]] = frozenset({"bytes"})

    def extract(self, result: RunResult, metric: str) -> Measurement:
        secs = max(result.wall_seconds, 1e-9)
        metrics = {"seconds": secs}
        if "bytes" in self.options:
            metrics["bandwidth_mib_s"] = parse_size(self.options["bytes"], f"{self.where}.bytes") / 2**20 / secs
        if metric not in metrics:
            return Measurement(None, metrics, error=f"walltime gives {', '.join(metrics)}, not {metric!r}")
        return Measurement(metrics[metric], metrics)


_REGISTRY: dict[str, type[BaseExtractor]] = {c.name: c for c in (JsonExtractor, RegexExtractor, WallTimeExtractor)}


def get_extractor(options: Mapping[str, Any] | None, where: str = "app.metric") -> BaseExtractor:
    """The extractor named by ``options['extractor']`` (default ``json``), built with its options."""
    opts = dict(options or {})
    name = str(opts.get("extractor", "json"))
    if name not in _REGISTRY:
        raise RegistryError(f"{where}.extractor: unknown extractor {name!r} (known: {', '.join(sorted(_REGISTRY))})")
    return _REGISTRY[name](opts, where)

"""Metric extractors: turn a run's output into the objective's value (kernel JSON, regex, wall time)."""

from __future__ import annotations

import abc
import json
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import regex

from autotune._registry import Option, Plugin, Registry
from autotune._result import RunResult
from autotune.errors import ConfigError
from autotune.measure._units import UNITS, to_canonical, unit_in_text, unit_name
from autotune.units import parse_size

# the third-party `regex` engine stops a search at a time limit (the standard `re` cannot be interrupted)
EXTRACT_TIMEOUT_S = 1.0


@dataclass
class Measurement:
    """One repetition's figures: the objective ``value`` (None when it could not be read) and the rest."""

    value: float | None
    metrics: dict[str, float] = field(default_factory=dict)
    record: dict[str, Any] | None = None
    hints_in_effect: dict[str, str] = field(default_factory=dict)
    hints_not_in_effect: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


class BaseExtractor(Plugin, abc.ABC):
    """Reads the objective metric from a finished, successful run. Subclasses set ``name`` and ``schema`` (their
    options, the keys of ``app.metric`` besides ``extractor``) and implement ``extract``.

    Built configured: ``get_extractor(name, options)`` returns an instance whose options were checked at
    construction (``EXTRACTORS.get(name)`` is the class).

    Contract (checked by ``autotune.testing.ExtractorContract``): never raises on bad output: returns a
    Measurement with ``value=None`` and ``error`` (one line) saying what was missing; a value is a finite float.
    """
    expected_kind: str | None = None  # what the objective measures (bandwidth/time/score), set by the campaign

    def __init__(self, options: Mapping[str, Any] | None = None, where: str = "app.metric") -> None:
        self.options = self.check_options(options, where, also=("extractor",))
        self.where = where
        self.unit = unit_name(self.options["unit"], f"{where}.unit") if "unit" in self.options else None

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
            except (ValueError, RecursionError):  # not JSON, or nested too deeply to be a record
                continue
            if isinstance(obj, dict):
                return obj
    return None


class JsonExtractor(BaseExtractor):
    """The last JSON line on stdout; the metric is ``record['metrics'][metric]``, or ``field`` (a dotted path)."""

    name: ClassVar[str] = "json"
    schema = (Option.text("field", "the record's key (dotted path)"), Option.text("unit"))

    def extract(self, result: RunResult, metric: str) -> Measurement:
        record = find_record(result.stdout)
        if record is None:
            lines = [ln.strip() for ln in result.stdout.splitlines() if ln.strip()]
            last = f"; last line: {lines[-1][:200]!r}" if lines else "; stdout is empty"
            return Measurement(None, error="no JSON record on stdout" + last)
        raw = record.get("metrics")
        metrics = {str(k): float(v) for k, v in (raw.items() if isinstance(raw, dict) else ())
                   if isinstance(v, (int, float))}
        path = str(self.options.get("field", ""))
        value: Any = None
        if path:
            value = record
            for part in path.split("."):
                value = value.get(part) if isinstance(value, dict) else None
        else:
            value = metrics.get(metric, record.get(metric))
            if value is None and isinstance(raw, dict):
                value = raw.get(metric)
        if value is not None and (not isinstance(value, (int, float)) or isinstance(value, bool)):
            shown = repr(value) if len(repr(value)) <= 80 else repr(value)[:77] + "..."
            return Measurement(None, metrics, record, error=f"metric {path or metric!r} is {shown} in the JSON record, "
                               "not a number")
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            return Measurement(None, metrics, record, error=f"metric {path or metric!r} not in the JSON record "
                               f"(it has: {', '.join(sorted(metrics or record)[:12]) or 'nothing'})")
        if self.unit is not None:
            value = to_canonical(float(value), self.unit)
        return Measurement(float(value), metrics, record, dict(record.get("hints_in_effect") or {}),
                           dict(record.get("hints_not_in_effect") or {}))


class RegexExtractor(BaseExtractor):
    """``pattern`` with one group, searched in stdout (``stream: stderr|both`` to change); the last match,
    or their ``sum``/``max`` (``aggregate``), times ``scale``."""

    name: ClassVar[str] = "regex"
    schema = (Option.text("pattern", "a regular expression with one group"), Option.text("stream"), Option.text("aggregate"),
              Option.number("scale"), Option.text("unit"))

    def __init__(self, options: Mapping[str, Any] | None = None, where: str = "app.metric") -> None:
        super().__init__(options, where)
        pattern = self.options.get("pattern")
        if not isinstance(pattern, str):
            raise ConfigError(f"{where}.pattern: a regular expression with one group is required")
        try:
            self.regex = regex.compile(pattern, regex.MULTILINE)
        except (regex.error, ValueError, OverflowError) as exc:
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
        found: list[float] = []
        scale = float(self.options.get("scale", 1.0))
        deadline = time.monotonic() + EXTRACT_TIMEOUT_S
        try:
            for m in self.regex.finditer(text, timeout=EXTRACT_TIMEOUT_S):
                if time.monotonic() > deadline:  # millions of matches
                    raise TimeoutError
                try:
                    raw = float(m.group(1)) * scale
                except (TypeError, ValueError):
                    continue
                observed = unit_in_text(text[m.end(1):m.end(1) + 80].split("\n", 1)[0])  # bounded: no quadratic scan
                problem = self._unit_problem(observed, metric)
                if problem:
                    return Measurement(None, error=f"{problem}: {_line_of(text, m.start(1))!r}")
                unit = self.unit or (observed if "scale" not in self.options else None)  # scale: the user converts
                found.append(to_canonical(raw, unit) if unit else raw)
        except TimeoutError:
            return Measurement(None, error=f"pattern {self.regex.pattern!r} took more than {EXTRACT_TIMEOUT_S:g}s on "
                                           f"{stream} (catastrophic backtracking or too many matches?): simplify it")
        if not found:
            return Measurement(None, error=f"pattern {self.regex.pattern!r} not found in {stream}"
                               + explain_no_match(self.regex.pattern, text))
        agg = self.options.get("aggregate", "last")
        value = {"last": found[-1], "sum": sum(found), "max": max(found), "min": min(found)}[agg]
        return Measurement(value, {metric: value})

    def _unit_problem(self, observed: str | None, metric: str) -> str | None:
        """Why a capture followed by ``observed`` cannot be the metric (None: it can)."""
        if observed is None:
            return None
        kind = UNITS[observed][0]
        if self.unit is not None and observed != self.unit:
            return f"the output says {observed} ({'a ' + kind}) where {self.where}.unit says {self.unit}"
        if self.expected_kind is not None and kind != self.expected_kind:
            return (f"the output says {observed} (a {kind}) but the objective {metric!r} is a {self.expected_kind}; "
                    f"declare {self.where}.unit and a matching objective")
        return None


def _line_of(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return text[start:end if end >= 0 else len(text)].strip()


def explain_no_match(pattern: str, text: str) -> str:
    """``; closest line: '...'`` (the output line most like the pattern) or ``; the output is empty``."""
    import difflib

    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not lines:
        return "; the output is empty"
    literal = re.sub(r"\\.|[()\[\]{}*+?|^$]", "", pattern)
    best = max(lines[-200:], key=lambda ln: difflib.SequenceMatcher(None, literal, ln[:200]).ratio())
    return f"; closest line: {best[:200]!r}; last line: {lines[-1][:200]!r}"


class WallTimeExtractor(BaseExtractor):
    """The run's wall time in seconds (``seconds``); with ``bytes`` also ``bandwidth_mib_s``."""

    name: ClassVar[str] = "walltime"
    schema = (Option.size("bytes", "bytes moved, for bandwidth_mib_s"),)

    def extract(self, result: RunResult, metric: str) -> Measurement:
        secs = max(result.wall_seconds, 1e-9)
        metrics = {"seconds": secs}
        if "bytes" in self.options:
            metrics["bandwidth_mib_s"] = parse_size(self.options["bytes"], f"{self.where}.bytes") / 2**20 / secs
        if metric not in metrics:
            return Measurement(None, metrics, error=f"walltime gives {', '.join(metrics)}, not {metric!r}")
        return Measurement(metrics[metric], metrics)


# The built-in extractors, each registered once, by name, imported when first asked for.
EXTRACTORS: Registry[type[BaseExtractor]] = Registry("extractor", "app.metric.extractor", base=BaseExtractor)
for _name, _target in (("json", "_extract:JsonExtractor"), ("regex", "_extract:RegexExtractor"),
                       ("walltime", "_extract:WallTimeExtractor"), ("ior", "_ior:IorExtractor"),
                       ("mdtest", "_ior:MdtestExtractor"), ("h5bench", "_bench:H5benchExtractor"),
                       ("fio", "_bench:FioExtractor"), ("darshan", "_darshan:DarshanExtractor")):
    EXTRACTORS.register_lazy(_name, f"autotune.measure.{_target}")


def get_extractor(name: str, options: Mapping[str, Any] | None = None, where: str = "app.metric") -> BaseExtractor:
    """The extractor called ``name``, built with ``options`` (checked against its ``schema``; the campaign's
    ``app.metric`` mapping, whose ``extractor`` key names it, is accepted as it is); an unknown name or option is a
    one-line error. ``EXTRACTORS.get(name)`` is its class."""
    return EXTRACTORS.get(name, f"{where}.extractor")(options, where)

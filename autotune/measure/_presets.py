"""Shared machinery of the benchmark presets (``extractor: ior | mdtest | h5bench | fio``).

A preset parses a tool's whole output into named metrics (``write_bandwidth_mib_s``, ``read_iops``, ...);
the objective picks one. Options: ``stream`` (stdout, stderr or both; default stdout) and ``file`` (read
the tool's output from this path instead, ``{run_dir}`` replaced, e.g. for ``fio --output=...``).
"""

from __future__ import annotations

import abc
import re
from pathlib import Path
from typing import Any, ClassVar

from autotune._registry import Option
from autotune._result import RunResult
from autotune.errors import ConfigError
from autotune.measure._extract import BaseExtractor, Measurement

NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
# binary prefixes to MiB (tools that print "MB" for 2^20, like fio 2.x and h5bench, use the same table)
TO_MIB = {"": 1 / 2**20, "B": 1 / 2**20, "K": 1 / 1024, "KI": 1 / 1024, "M": 1.0, "MI": 1.0, "G": 1024.0, "GI": 1024.0,
          "T": 1024.0**2, "TI": 1024.0**2, "P": 1024.0**3, "PI": 1024.0**3}
DECIMAL_TO_MIB = {"K": 1e3 / 2**20, "M": 1e6 / 2**20, "G": 1e9 / 2**20, "T": 1e12 / 2**20}


def to_mib(value: float, prefix: str) -> float:
    """``value`` in ``prefix``B/s (K, Ki, M, Mi, G, ...; binary) as MiB/s."""
    key = prefix.upper().rstrip("B")
    if key not in TO_MIB:
        raise ValueError(f"unknown size prefix {prefix!r}")
    return value * TO_MIB[key]


def with_totals(metrics: dict[str, float]) -> dict[str, float]:
    """Add ``bandwidth_mib_s`` (the write figure, else the read one) when a tool gives per-operation ones."""
    for key in ("write_bandwidth_mib_s", "read_bandwidth_mib_s"):
        if key in metrics:
            metrics.setdefault("bandwidth_mib_s", metrics[key])
            break
    return metrics


class PresetExtractor(BaseExtractor):
    """A benchmark's output format: subclasses implement ``parse(text) -> metrics`` (raising nothing)."""

    tool: ClassVar[str] = ""
    schema = (Option.text("stream", "stdout, stderr or both"), Option.text("file", "a file the tool wrote instead"))

    def __init__(self, options: Any = None, where: str = "app.metric") -> None:
        super().__init__(options, where)
        if self.options.get("stream", "stdout") not in ("stdout", "stderr", "both"):
            raise ConfigError(f"{where}.stream: {self.options['stream']!r} is not one of stdout, stderr, both")
        if "file" in self.options and (not isinstance(self.options["file"], str) or not self.options["file"]):
            raise ConfigError(f"{where}.file: {self.options['file']!r} is not a path")

    @abc.abstractmethod
    def parse(self, text: str) -> dict[str, float]:
        """Every metric the output holds (empty when it holds none)."""

    def text_of(self, result: RunResult) -> tuple[str, str]:
        if "file" in self.options:
            path = Path(str(self.options["file"]).replace("{run_dir}", str(result.info.get("run_dir", "."))))
            try:
                return path.read_text(errors="replace"), str(path)
            except OSError as exc:
                return "", f"{path} ({exc.strerror or exc})"
        stream = self.options.get("stream", "stdout")
        text = {"stdout": result.stdout, "stderr": result.stderr}.get(stream, result.stdout + "\n" + result.stderr)
        return text, stream

    def extract(self, result: RunResult, metric: str) -> Measurement:
        text, source = self.text_of(result)
        try:
            metrics = with_totals(self.parse(text))
        except (ValueError, KeyError, IndexError) as exc:
            return Measurement(None, error=f"{self.tool} output in {source} could not be parsed ({exc})" + last_line(text))
        if not metrics:
            return Measurement(None, error=f"no {self.tool} results in {source}" + last_line(text))
        if metric not in metrics:
            return Measurement(None, metrics, error=f"{self.tool} output gives {', '.join(sorted(metrics))}, not {metric!r}")
        return Measurement(metrics[metric], metrics)


def last_line(text: str) -> str:
    """``; last line: '...'`` (the output line that usually says why), or ``; the output is empty``."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return f"; last line: {lines[-1][:200]!r}" if lines else "; the output is empty"


def slug(name: str) -> str:
    """'File creation' -> 'file_creation'."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")

"""The replay launcher: a repetition is drawn from a recorded sweep instead of being run.

A recording is a CSV (``experiments/evaluation/surfaces/*.csv``; ``python -m experiments.evaluation.surfaces.sweep``
makes them with grid campaigns) with ``#``-comment header lines (``# metric: NAME`` names the measured metric) and the
columns ``config`` (``name=value;...`` sorted by name), ``value`` (empty for a failed run) and optionally
``wall_s``. ``run`` draws one of the configuration's recorded repetitions (seeded by the campaign, the
trial, the repetition and the ``seed`` option, so a rerun draws the same) and prints it as a kernel-style
JSON record; a configuration that was not recorded is a failed run saying so. Options: ``surface`` (the
CSV; relative to the campaign file's directory), ``seed`` (default 0).
"""

from __future__ import annotations

import csv
import json
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from autotune._registry import Option
from autotune.errors import ConfigError
from autotune.launch._base import BaseLauncher, RunRequest, RunResult
from autotune.space import resolve_alias
from autotune.systems import FileSystem


def _norm(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)


def config_key(config: Mapping[str, Any]) -> str:
    """The recording's key of a configuration: ``name=value;...`` sorted by name."""
    return ";".join(f"{k}={_norm(config[k])}" for k in sorted(config))


def parse_key(key: str) -> dict[str, str]:
    return dict(item.split("=", 1) for item in key.split(";") if item)


@dataclass
class Recording:
    """A recorded sweep: every repetition of every configuration (None: a failed run)."""

    path: Path
    metric: str
    runs: dict[str, list[tuple[float | None, float]]]
    header: dict[str, str] = field(default_factory=dict)

    @property
    def parameters(self) -> dict[str, list[str]]:
        """Each recorded parameter and the values it took."""
        seen: dict[str, set[str]] = {}
        for key in self.runs:
            for k, v in parse_key(key).items():
                seen.setdefault(k, set()).add(v)
        return {k: sorted(v) for k, v in sorted(seen.items())}

    def medians(self) -> dict[str, float]:
        """The per-configuration median of the successful repetitions (the noiseless truth of a sweep)."""
        out = {}
        for key, reps in self.runs.items():
            ok = [v for v, _ in reps if v is not None]
            if ok:
                out[key] = float(np.median(ok))
        return out

    def as_read(self, fs: FileSystem) -> dict[str, list[tuple[float | None, float]]]:
        """The runs keyed as the system reads each value on ``fs`` (a recorded stripe count of -1 is its OST count:
        ``autotune.space.resolve_alias``, as a search space binds it); configurations that are the same there are
        pooled."""
        env = {f"fs.{k}": v for k, v in fs.namespace().items()}
        out: dict[str, list[tuple[float | None, float]]] = {}
        for key, runs in self.runs.items():
            read = {k: _read(k, v, env) for k, v in parse_key(key).items()}
            out.setdefault(config_key(read), []).extend(runs)
        return out

    @classmethod
    def load(cls, path: Path, where: str = "launcher.surface") -> Recording:
        return _load(path.resolve(), where)


@lru_cache(maxsize=32)
def _load(path: Path, where: str) -> Recording:
    try:
        text = path.read_text()
    except OSError as exc:
        raise ConfigError(f"{where}: cannot read recording {str(path)!r}: {exc.strerror}") from None
    header: dict[str, str] = {}
    body = []
    for line in text.splitlines():
        if line.startswith("#"):
            k, _, v = line[1:].partition(":")
            header[k.strip()] = v.strip()
        elif line.strip():
            body.append(line)
    rows = list(csv.DictReader(body))
    if not rows or not {"config", "value"} <= set(rows[0]):
        raise ConfigError(f"{where}: {str(path)!r} is not a recording (expected CSV columns config, value)")
    if "metric" not in header:
        raise ConfigError(f"{where}: {str(path)!r} has no '# metric: NAME' header line")
    runs: dict[str, list[tuple[float | None, float]]] = {}
    for i, r in enumerate(rows, start=2):
        try:
            value = float(r["value"]) if r["value"] else None
            wall = float(r.get("wall_s") or 0.0)
        except ValueError:
            raise ConfigError(f"{where}: {path.name} row {i}: value {r['value']!r} is not a number") from None
        runs.setdefault(config_key(parse_key(r["config"])), []).append((value, wall))
    return Recording(path, header["metric"], runs, header)


class ReplayLauncher(BaseLauncher):
    """Replays a recorded sweep (``launcher: {name: replay, surface: sweep.csv}``)."""

    name: ClassVar[str] = "replay"
    schema = (Option.text("surface", "the recorded sweep (CSV)"), Option.integer("seed"))
    runs_command: ClassVar[bool] = False

    def __init__(self, options: Mapping[str, Any] | None = None, where: str = "launcher") -> None:
        super().__init__(options, where)
        surface = self.options.get("surface")
        if not isinstance(surface, str) or not surface:
            raise ConfigError(f"{where}.surface: {surface!r} is not the path of a recorded sweep (CSV)")
        seed = self.options.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ConfigError(f"{where}.seed: {seed!r} is not an integer")
        self.surface, self.seed, self.where = Path(surface), seed, where

    def recording(self, request: RunRequest) -> Recording:
        path = self.surface if self.surface.is_absolute() or request.app.cwd is None else request.app.cwd / self.surface
        return Recording.load(path, f"{self.where}.surface")

    def describe(self, request: RunRequest) -> str:
        return f"replay {self.surface} {config_key(request.config) or '(defaults)'}"

    def run(self, request: RunRequest) -> RunResult:
        rec = self.recording(request)
        key = config_key(request.config)
        runs = rec.runs.get(key) or rec.as_read(request.fs).get(key)
        if not runs:
            return RunResult(returncode=1, error=_why_unrecorded(rec, request.config), info={"command": self.describe(request)})
        rng = np.random.default_rng([zlib.crc32(request.campaign.encode()), self.seed, request.trial, request.repetition])
        value, wall = runs[int(rng.integers(len(runs)))]
        if value is None:
            return RunResult(returncode=1, stderr="the recorded run failed\n", wall_seconds=wall,
                             error=f"replay: the drawn recorded run of {key} failed", info={"command": self.describe(request)})
        record = {"metrics": {rec.metric: value, "seconds": wall}, "replay": {"surface": rec.path.name, "runs": len(runs)}}
        return RunResult(returncode=0, stdout=json.dumps(record) + "\n", wall_seconds=wall,
                         info={"command": self.describe(request)})


def _read(name: str, value: str, env: dict[str, Any]) -> str:
    """A recorded value (text) as the system reads it (``resolve_alias``), as text."""
    number = int(value) if value.lstrip("-").isdigit() else None
    read = resolve_alias(name, number, env) if number is not None else value
    return value if read == number else _norm(read)


def _why_unrecorded(rec: Recording, config: Mapping[str, Any]) -> str:
    """One line: which parameter or value of ``config`` the recording does not have."""
    params = rec.parameters
    extra = sorted(set(config) - set(params))
    if extra:
        return f"replay: parameter {extra[0]} was not varied in {rec.path.name} (recorded: {', '.join(params)})"
    missing = sorted(set(params) - set(config))
    if missing:
        return f"replay: the configuration lacks {missing[0]}, which {rec.path.name} records"
    for k in sorted(config):
        if _norm(config[k]) not in params[k]:
            return f"replay: {k}={_norm(config[k])} was not recorded in {rec.path.name} (recorded: {', '.join(params[k])})"
    return f"replay: configuration {config_key(config)} was not recorded in {rec.path.name}"

"""Scenarios as data (experiments/evaluation/evalkit/scenarios.yaml) and their ground truth on the noiseless model."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from autotune.campaign import Campaign, Runtime, parse_campaign
from autotune.optimize import candidates, coordinate_ascent, model_metric
from autotune.space import BoundSpace, Config

SCENARIOS = Path(__file__).resolve().parent / "scenarios.yaml"  # not experiments/campaigns/*.yaml: those are campaigns
EXHAUSTIVE_LIMIT = 100_000  # thinned-grid points searched exhaustively (the model does ~17k predictions/s)
SAMPLE = 40_000  # above that: random grid points, then coordinate ascent from the best five
_KEYS = {"name", "description", "system", "filesystem", "app", "space", "metric", "direction", "held_out"}
_REQUIRED = ("name", "system", "filesystem", "app", "space")
# what the noiseless model predicts (autotune.optimize.model_metric); times are minimised, bandwidths maximised
METRICS = tuple(f"{op}{kind}" for op in ("", "write_", "read_") for kind in ("bandwidth_mib_s", "seconds"))


def default_direction(metric: str) -> str:
    """As a campaign's ``objective.direction`` defaults: bandwidths are maximised, times minimised."""
    return "maximize" if "bandwidth" in metric else "minimize"


@dataclass(frozen=True)
class Scenario:
    name: str
    system: str
    filesystem: str
    app: dict[str, Any]
    space: Any
    metric: str = "write_bandwidth_mib_s"
    direction: str = "maximize"
    description: str = ""
    held_out: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def campaign(self, **over: Any) -> Campaign:
        """The scenario as a model campaign (in-memory storage, no tracking); ``over`` replaces top keys."""
        app = {"name": self.name, "command": ["model"], "mpiexec": False, "ranks": self.app["ranks"],
               "nodes": self.app.get("nodes", 1), "metric": {"extractor": "json"},
               "pattern": {k: v for k, v in self.app.items() if k not in ("ranks", "nodes")}}
        data: dict[str, Any] = {
            "name": self.name, "app": app, "system": self.system, "target": {"filesystem": self.filesystem},
            "space": self.space, "objective": {"metric": self.metric, "direction": self.direction, "repeats": 3},
            "budget": {"trials": 40}, "launcher": {"name": "model"}, "storage": ":memory:",
            "tracking": {"enabled": False}, "workdir": "/tmp/autotune-eval",
        }
        data.update(over)
        return parse_campaign(data, Path.cwd())


def load_scenarios(path: str | Path = SCENARIOS) -> list[Scenario]:
    """The scenarios of ``path``; a bad entry raises ValueError naming the scenario, the key and what was expected."""
    try:
        data = yaml.safe_load(Path(path).read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise ValueError(f"scenarios file {str(path)!r}: {exc}".splitlines()[0]) from None
    if not isinstance(data, dict) or not isinstance(data.get("scenarios"), list):
        raise ValueError(f"scenarios file {str(path)!r}: expected a mapping with a list 'scenarios'")
    out: list[Scenario] = []
    for i, s in enumerate(data["scenarios"]):
        where = f"scenario {s.get('name', i)!r}" if isinstance(s, dict) else f"scenario {i}"
        if not isinstance(s, dict):
            raise ValueError(f"{where}: expected a mapping, got {s!r}")
        unknown = set(s) - _KEYS
        if unknown:
            raise ValueError(f"{where}: unknown keys {sorted(unknown)} (expected some of {sorted(_KEYS)})")
        missing = [k for k in _REQUIRED if k not in s]
        if missing:
            raise ValueError(f"{where}: missing keys {missing}")
        if not isinstance(s["app"], dict) or "ranks" not in s["app"]:
            raise ValueError(f"{where}: app: {s['app']!r} is not a mapping with 'ranks'")
        metric = str(s.get("metric", "write_bandwidth_mib_s"))
        if metric not in METRICS:
            raise ValueError(f"{where}: metric {metric!r} is not one the model predicts ({', '.join(METRICS)})")
        direction = str(s.get("direction", default_direction(metric)))
        if direction != default_direction(metric):
            raise ValueError(f"{where}: direction {direction!r} for {metric!r}: expected {default_direction(metric)!r}")
        if any(o.name == s["name"] for o in out):
            raise ValueError(f"{where}: the name is used twice")
        out.append(Scenario(name=str(s["name"]), system=s["system"], filesystem=s["filesystem"], app=dict(s["app"]),
                            space=s["space"], metric=metric, direction=direction,
                            description=s.get("description", ""), held_out=bool(s.get("held_out", False))))
    return out


_SPACES: dict[str, BoundSpace] = {}
_TRUTHS: dict[str, Truth] = {}


def bound_space(sc: Scenario) -> BoundSpace:
    if sc.name not in _SPACES:
        _SPACES[sc.name] = Runtime.build(sc.campaign()).space
    return _SPACES[sc.name]


def _key(config: Config) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted(config.items()))


class Truth:
    """Noiseless values of configurations (cached) and the optimum by exhaustive search.

    Values are "larger is better": the metric for a bandwidth, its inverse for a time (a speed), so the
    regret ``1 - value / optimum`` is ``1 - T_opt / T`` for times and the same for both kinds of metric.
    """

    def __init__(self, sc: Scenario) -> None:
        self.sc = sc
        self.space = bound_space(sc)
        self._cache: dict[tuple[tuple[str, Any], ...], float] = {}
        self.maximize = sc.direction == "maximize"
        self.method = ""
        self.optimum_config, self.optimum = self._search()
        if not self.optimum > 0:
            raise ValueError(f"scenario {sc.name!r}: the model predicts no {sc.metric} for any configuration "
                             "(a read metric needs a read phase: app.phases)")

    def value(self, config: Config) -> float:
        k = _key(config)
        if k not in self._cache:
            v = model_metric(self.space, config, self.sc.metric)
            if v is None or not v > 0:
                self._cache[k] = 0.0
            else:
                self._cache[k] = float(v) if self.maximize else 1.0 / float(v)
        return self._cache[k]

    def _search(self) -> tuple[Config, float]:
        """Every feasible point of the thinned grid (or, above ``EXHAUSTIVE_LIMIT`` points, a random sample of
        it), then coordinate ascent over the full integer ranges from the best few."""
        if self.space.size() <= EXHAUSTIVE_LIMIT:
            points: list[Config] = list(self.space.grid())
            self.method = "exhaustive"
        else:
            points = candidates(self.space, limit=SAMPLE)
            self.method = f"sample of {SAMPLE} + coordinate ascent"
        points.append(self.space.default_config())
        starts: list[Config] = []
        for cfg in sorted(points, key=self.value, reverse=True):
            if cfg not in starts:
                starts.append(cfg)
            if len(starts) == 5:
                break
        return max((coordinate_ascent(self.space, self.value, c) for c in starts), key=lambda t: t[1])

    def metric_value(self, config: Config) -> float:
        """The noiseless metric itself (MiB/s or seconds)."""
        v = self.value(config)
        return v if self.maximize or v == 0 else 1.0 / v

    def regret(self, config: Config) -> float:
        return max(0.0, 1.0 - self.value(config) / self.optimum)

    def summary(self) -> dict[str, Any]:
        default = self.space.default_config()
        return {"scenario": self.sc.name, "metric": self.sc.metric, "direction": self.sc.direction,
                "optimum": self.metric_value(self.optimum_config), "optimum_config": self.optimum_config,
                "optimum_search": self.method,
                "default_value": self.metric_value(default), "default_regret": self.regret(default),
                "held_out": self.sc.held_out, "description": self.sc.description}


def truth(sc: Scenario) -> Truth:
    """The scenario's ground truth (computed once per process)."""
    if sc.name not in _TRUTHS:
        _TRUTHS[sc.name] = Truth(sc)
    return _TRUTHS[sc.name]

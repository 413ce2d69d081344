"""Truths the model did not write: real measured surfaces (replayed) and structural model variants.

A ``SurfaceTruth`` gives the campaign of a method on it, the noiseless value of a configuration (larger
is better), fresh noisy draws for the re-measurement step, and the optimum.
"""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import Any

import numpy as np

from autotune.campaign import Campaign, Runtime, parse_campaign
from autotune.hints import inert
from autotune.launch import Recording, config_key
from autotune.space import BoundSpace, Config
from experiments.evaluation.evalkit.methods import method_overrides
from experiments.evaluation.evalkit.scenarios import Scenario, Truth, load_scenarios
from experiments.evaluation.evalkit.structural import metrics_of, variant_prediction
from experiments.evaluation.surfaces.sweep import campaign as sweep_campaign

SURFACES = Path(__file__).resolve().parent.parent / "surfaces"
# (scenario of evalkit/scenarios.yaml, variant): each moves the model's optimum on its scenario (the model's
# own optimum has 3-95% regret there); free-cache moved no scenario's optimum, so it is not used
STRUCTURAL = (("wrf-shaheen-lustre", "ost-contention"), ("wrf-shaheen-lustre", "aggregator-contention"),
              ("theta-ior-64m", "aggregator-contention"), ("theta-ior-64m", "no-locks"))
METRIC = "write_bandwidth_mib_s"


class SurfaceTruth:
    """Common scoring interface of both kinds of truth."""

    name: str
    kind: str
    space: BoundSpace
    optimum: float
    optimum_config: Config

    def campaign(self, method: str, seed: int, trials: int) -> Campaign:
        raise NotImplementedError

    def value(self, config: Config) -> float:
        raise NotImplementedError

    def draw(self, config: Config, key: list[int]) -> tuple[float, float]:
        """One noisy repetition (value, seconds) of ``config``, seeded by ``key``."""
        raise NotImplementedError

    def physical(self, config: Config) -> str:
        """The key of ``config`` with its settings that cannot act at their defaults (e.g. cb_nodes with collective
        buffering disabled): configurations with the same key are physically the same (twins)."""
        default = self.space.default_config()
        dead = inert(config, self.space.pattern.phases)
        return config_key({k: default.get(k) if k in dead else v for k, v in config.items()})

    def regret(self, config: Config) -> float:
        return max(0.0, 1.0 - self.value(config) / self.optimum)

    def physical_regret(self, config: Config) -> float:
        """Regret scored by physical configuration (twins' runs pooled); the model's truths have no twins."""
        return self.regret(config)

    def seconds(self, config: Config) -> float:
        """A typical run time of ``config`` (the benchmark cost of a one-shot method)."""
        return float(np.median([self.draw(config, [i])[1] for i in range(5)]))

    def summary(self) -> dict[str, Any]:
        default = self.space.default_config()
        return {"truth": self.name, "kind": self.kind, "optimum": self.optimum, "optimum_config": self.optimum_config,
                "default_value": self.value(default), "default_regret": self.regret(default)}


def _overrides(method: str, seed: int, trials: int) -> dict[str, Any]:
    over = method_overrides(method, seed, trials)
    objective = {"metric": METRIC, "direction": "maximize", **over["objective"], "confirm": 0}  # the search alone
    return {"sampler": over["sampler"], "objective": objective,
            "budget": {"trials": trials}, "storage": ":memory:", "tracking": {"enabled": False}}


class RealSurface(SurfaceTruth):
    """A recorded sweep (experiments/evaluation/surfaces/NAME.csv; NAME may be ``loaded/NAME``, the sweeps of a loaded
    machine kept for comparison) replayed; truth = per-configuration median."""

    kind = "real"

    def __init__(self, name: str, directory: Path = SURFACES) -> None:
        self.name, self.path = name, directory / f"{name}.csv"
        self.recording = Recording.load(self.path, f"surface {name}")
        self.medians = self.recording.medians()
        self.space = Runtime.build(self.campaign("random", 0, 1)).space
        best = max(self.medians, key=lambda k: self.medians[k])
        self.optimum = self.medians[best]
        self.optimum_config = next(c for c in self.space.grid() if config_key(c) == best)
        # the same truth with twins (configurations that differ only in settings that cannot act) as one
        # configuration: every run of the twins pooled, their median the value
        pooled: dict[str, list[float]] = {}
        for cfg in self.space.grid():
            runs = [float(v) for v, _ in self.recording.runs.get(config_key(cfg), []) if v is not None]
            pooled.setdefault(self.physical(cfg), []).extend(runs)
        self.physical_medians = {k: float(np.median(v)) for k, v in pooled.items() if v}
        self.physical_optimum = max(self.physical_medians.values())

    def noise_floor(self) -> float | None:
        """How far apart the truth puts configurations that are physically the same (they differ only in
        settings that cannot act, e.g. cb_nodes with collective buffering disabled): the median over such
        twin groups of 1 - lowest median / highest median. Regrets below it are within the truth's noise."""
        groups: dict[str, list[float]] = {}
        for cfg in self.space.grid():
            key = config_key(cfg)
            if key in self.medians:
                groups.setdefault(self.physical(cfg), []).append(self.medians[key])
        spreads = [1 - min(v) / max(v) for v in groups.values() if len(v) > 1 and max(v) > 0]
        return float(np.median(spreads)) if spreads else None

    def summary(self) -> dict[str, Any]:
        reps = [len(v) for v in self.recording.runs.values()]
        return {**super().summary(), "noise_floor": self.noise_floor(), "configurations": len(self.recording.runs),
                "repetitions_min": min(reps), "repetitions_total": sum(reps)}

    def campaign(self, method: str, seed: int, trials: int) -> Campaign:
        data = sweep_campaign(Path(self.name).name, 0)  # loaded/NAME: the same campaigns as NAME had
        data.update(_overrides(method, seed, trials), name=f"{Path(self.name).name}-{method}-s{seed}",
                    launcher={"name": "replay", "surface": str(self.path)}, workdir="/tmp/autotune-surface-eval")
        return parse_campaign(data, self.path.parent)

    def value(self, config: Config) -> float:
        return self.medians.get(config_key(config), 0.0)

    def physical_regret(self, config: Config) -> float:
        return max(0.0, 1.0 - self.physical_medians.get(self.physical(config), 0.0) / self.physical_optimum)

    def draw(self, config: Config, key: list[int]) -> tuple[float, float]:
        runs = [r for r in self.recording.runs.get(config_key(config), []) if r[0] is not None]
        if not runs:
            return 0.0, 0.0
        v, s = runs[int(np.random.default_rng(key).integers(len(runs)))]
        return float(v or 0.0), s


class StructuralTruth(SurfaceTruth):
    """A scenario of the optimizer evaluation on a structural variant of the model."""

    kind = "structural"

    def __init__(self, scenario: Scenario, variant: str) -> None:
        self.sc, self.variant, self.name = scenario, variant, f"{scenario.name}~{variant}"
        outer = self

        class _T(Truth):
            def value(self, config: Config) -> float:
                return outer.value(config)

        self.space = Runtime.build(scenario.campaign()).space
        self._cache: dict[str, float] = {}
        t = _T(scenario)
        self.optimum, self.optimum_config, self.search = t.optimum, t.optimum_config, t.method

    def campaign(self, method: str, seed: int, trials: int) -> Campaign:
        over = _overrides(method, seed, trials)
        return self.sc.campaign(**over, study=f"{self.name.replace('~', '_')}-{method}-s{seed}",
                                launcher={"name": "variant", "variant": self.variant})

    def value(self, config: Config) -> float:
        k = config_key(config)
        if k not in self._cache:
            try:
                pred = variant_prediction(self.variant, self.space.pattern, self.space.system, self.space.fs.name, config)
                self._cache[k] = metrics_of(pred)[METRIC]
            except Exception:  # noqa: BLE001 - a configuration the target rejects has no value
                self._cache[k] = 0.0
        return self._cache[k]

    def draw(self, config: Config, key: list[int]) -> tuple[float, float]:
        from autotune.model import NoiseModel

        pred = variant_prediction(self.variant, self.space.pattern, self.space.system, self.space.fs.name, config)
        m = metrics_of(NoiseModel().sample(pred, np.random.default_rng(key)))
        return m[METRIC], m["seconds"]


def real_surfaces(directory: Path = SURFACES) -> list[str]:
    return sorted(p.stem for p in directory.glob("*.csv"))


def load_truth(name: str) -> SurfaceTruth:
    """``NAME`` (a recorded surface) or ``SCENARIO~VARIANT`` (a structural truth)."""
    if "~" in name:
        scenario, variant = name.split("~", 1)
        sc = next(s for s in load_scenarios() if s.name == scenario)
        return StructuralTruth(sc, variant)
    return RealSurface(name)


def draw_key(study: str, seed: int, *parts: int) -> list[int]:
    return [zlib.crc32(study.encode()), seed, *parts]

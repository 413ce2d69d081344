"""``simulate_run``: one repetition of a pattern on the model, as the kernels' JSON record."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from autotune.model._noise import NoiseModel
from autotune.model._phases import predict
from autotune.pattern import IOPattern
from autotune.systems import SystemProfile

_MIB = 1 << 20


def simulate_run(pattern: IOPattern, system: SystemProfile, filesystem: str | None, config: Mapping[str, Any], *,
                 rng: np.random.Generator | int | None = None, noise: bool | NoiseModel = True) -> dict[str, Any]:
    """The record a kernel would print for one run (``kernel: "model"``), jittered unless ``noise`` is False."""
    pred = predict(pattern, system, filesystem, config)
    model = noise if isinstance(noise, NoiseModel) else NoiseModel(enabled=bool(noise))
    run = model.sample(pred, rng)
    phases: dict[str, dict[str, float | int]] = {}
    metrics: dict[str, float] = {}
    for ph in run.phases:
        entry = phases.setdefault(ph.op, {"bytes": 0, "seconds": 0.0, "bandwidth_mib_s": 0.0})
        entry["bytes"] = int(entry["bytes"]) + ph.bytes
        entry["seconds"] = float(entry["seconds"]) + ph.seconds
        entry["bandwidth_mib_s"] = int(entry["bytes"]) / _MIB / float(entry["seconds"])
    for op, entry in phases.items():
        metrics[f"{op}_bandwidth_mib_s"] = float(entry["bandwidth_mib_s"])
        metrics[f"{op}_seconds"] = float(entry["seconds"])
    total_s = run.seconds
    metrics["bandwidth_mib_s"] = run.bytes / _MIB / total_s
    metrics["seconds"] = total_s
    return {
        "autotune_record": 1, "kernel": "model", "ranks": pattern.ranks, "nodes": pattern.nodes,
        "bytes": pattern.data_bytes, "phases": phases, "metrics": metrics,
        "hints_requested": dict(config), "hints_in_effect": dict(pred.hints_in_effect),
        "aggregators": pred.aggregators, "explanation": run.explain(),
    }

"""Model-informed start: rank configurations with the performance model, propose the top ones first."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import fields, replace
from typing import Any

import numpy as np

from autotune.errors import AutotuneError, ConfigError
from autotune.model import constants_for, predict
from autotune.space import BoundSpace, Config

MAX_CANDIDATES = 4000


def model_metric(space: BoundSpace, config: Mapping[str, Any], metric: str, constants: Any = None) -> float | None:
    """The noiseless model's value of ``metric`` for ``config`` (None when the model cannot say)."""
    try:
        pred = predict(space.pattern, space.system, space.fs.name, config, constants=constants)
    except (AutotuneError, ValueError, KeyError, ZeroDivisionError):
        return None
    return pred.metric(metric)


def candidates(space: BoundSpace, limit: int = MAX_CANDIDATES, seed: int = 0, max_values: int = 64) -> list[Config]:
    """Feasible configurations to rank: the whole grid, or ``limit`` random points of it (integer ranges longer
    than ``max_values`` thinned to powers of two, ``Param.values``)."""
    names = [p.name for p in space.active]
    values = [p.values(max_values) for p in space.active]
    total = space.size(max_values)
    if total <= limit:
        combos = list(itertools.product(*values))
    else:
        rng = np.random.default_rng(seed)
        combos = [tuple(v[int(rng.integers(len(v)))] for v in values) for _ in range(limit)]
    out = [{**space.fixed, **dict(zip(names, combo, strict=True))} for combo in combos]
    out.append(space.default_config())
    return [c for c in out if space.feasible(c)]


def coordinate_ascent(space: BoundSpace, score: Callable[[Config], float], start: Config,
                      max_values: int = 100_000) -> tuple[Config, float]:
    """Climb from ``start``: change one parameter at a time to its best feasible value (over the full
    integer ranges) until no change improves ``score`` (larger is better)."""
    best_cfg, best = dict(start), score(start)
    improved = True
    while improved:
        improved = False
        for p in space.active:
            for val in p.values(max_values=max_values):
                cfg = {**best_cfg, p.name: val}
                if cfg != best_cfg and space.feasible(cfg):
                    v = score(cfg)
                    if v > best + abs(best) * 1e-9:
                        best_cfg, best, improved = cfg, v, True
    return best_cfg, best


def model_ranked(space: BoundSpace, metric: str, maximize: bool, top: int = 3, constants: Any = None,
                 limit: int = MAX_CANDIDATES) -> list[Config]:
    """The ``top`` distinct configurations the model ranks best (empty when the model cannot predict).

    When the space is larger than ``limit`` the ranking is over a random sample, so each of the top
    sampled configurations is then refined by coordinate ascent on the model.
    """
    def score(cfg: Config) -> float:
        v = model_metric(space, cfg, metric, constants)
        return float("-inf") if v is None or not np.isfinite(v) else (v if maximize else -v)

    scored = [(-score(cfg), i, cfg) for i, cfg in enumerate(candidates(space, limit))]
    scored = sorted((t for t in scored if np.isfinite(t[0])), key=lambda t: (t[0], t[1]))
    ranked: list[Config] = []
    for _, _, cfg in scored:
        if cfg not in ranked:
            ranked.append(cfg)
        if len(ranked) >= top:
            break
    if space.size() <= limit:
        return ranked
    climbed = sorted((coordinate_ascent(space, score, cfg) for cfg in ranked), key=lambda t: -t[1])
    out: list[Config] = []
    for cfg in [c for c, _ in climbed] + ranked:
        if cfg not in out:
            out.append(cfg)
    return out[:top]


def scaled_constants(space: BoundSpace, factors: Mapping[str, float]) -> Any:
    """The profile's model constants with some multiplied (``{"ost_write_bw": 2.0}``): a mis-calibrated model."""
    base = constants_for(space.system, space.fs)
    known = {f.name: f for f in fields(base)}
    kw: dict[str, Any] = {}
    for name, factor in factors.items():
        if name not in known:
            raise ConfigError(f"sampler.prior.scale: unknown model constant {name!r}")
        value = getattr(base, name) * float(factor)
        kw[name] = round(value) if isinstance(getattr(base, name), int) else value
    return replace(base, **kw)

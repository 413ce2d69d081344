"""A diverse model start: the model's best configuration, then its best ones in other regions of the space.

The model's top picks are usually near-twins (one ridge point with ``romio_cb_write`` automatic or enable,
``cb_nodes`` 128 or 144): when the model is wrong about where the ridge peaks (aggregators that contend,
OSTs shared with other jobs), all of them lose together and the search starts in the wrong region. Here
the first pick is the model's best; each further pick is, among the configurations the model rates at
least ``FLOOR`` of its best, the one that maximises (distance to the picks so far) x (model value / best):
far away, yet still good by the model (a time is taken as its rate, 1 / time, so a minimised metric spreads
alike). Distances are over the active parameters, each normalised to
[0, 1] (numeric ones on a log2 scale, categorical ones 0 or 1), with settings that cannot act (aggregator
settings with collective buffering disabled) set to the default first, so twins are at distance 0. A categorical
whose choices are all numbers (e.g. the stripe counts a user listed) is ordered: its values sit on [0, 1] like a
numeric parameter's (log2 scale when all are positive), so 32 lies between 16 and 64, not as far from each as from
160. The configurations a campaign runs anyway before the model's picks (the default, the rules of thumb: the
``anchors``) count as picks already made: the model's further picks go where those say nothing yet, and a pick
that is one of them is the same trial.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from autotune.optimize._prior import MAX_CANDIDATES, candidates, coordinate_ascent, model_metric, model_ranked
from autotune.space import BoundParam, BoundSpace, Config, inert

FLOOR = 0.3  # a diverse pick is one the model rates at least this fraction of its best
CATEGORICAL = 0.5  # the distance of a categorical change (a numeric parameter's whole range is 1)
CB = "mpiio.romio_cb_write"  # the collective-buffering fork: aggregator settings act only on one side
SAME = 0.01  # a categorical change the model values within 1% does not act here


def ordered(p: BoundParam) -> bool:
    """Whether ``p`` is a categorical of numbers (its choices ordered by value)."""
    return p.type == "categorical" and bool(p.choices) and all(
        isinstance(c, (int, float)) and not isinstance(c, bool) and math.isfinite(c) for c in p.choices)


def _coord(p: BoundParam, value: Any) -> float:
    """``value`` of ``p`` on [0, 1] (log2 scale for numeric parameters and ordered categoricals of positive
    numbers)."""
    if p.type == "categorical":
        if not ordered(p) or not isinstance(value, (int, float)):
            return 0.0
        nums = [float(c) for c in p.choices]
        lo, hi, v = min(nums), max(nums), float(value)
        if lo > 0 and v > 0:
            lo, hi, v = math.log2(lo), math.log2(hi), math.log2(v)
        return 0.0 if hi <= lo else (v - lo) / (hi - lo)
    enc = float(p.encode(value))
    lo, hi = float(p.low), float(p.high)
    if p.type != "pow2" and lo >= 1:
        enc, lo, hi = math.log2(max(enc, 1.0)), math.log2(lo), math.log2(hi)
    return 0.0 if hi <= lo else (enc - lo) / (hi - lo)


def distance(space: BoundSpace, a: Config, b: Config, acts: Any = None) -> float:
    """Normalised Euclidean distance between two configurations, inert settings ignored; a categorical
    difference counts ``CATEGORICAL`` (only where ``acts(a, name, value)`` says the change acts)."""
    default = space.default_config()
    phases = space.pattern.phases
    a = {**a, **{k: default.get(k) for k in inert(a, phases)}}
    b = {**b, **{k: default.get(k) for k in inert(b, phases)}}
    total = 0.0
    for p in space.active:
        va, vb = a.get(p.name), b.get(p.name)
        if p.type == "categorical" and not ordered(p):
            total += 0.0 if va == vb or (acts is not None and not acts(a, p.name, vb)) else CATEGORICAL ** 2
        elif va is not None and vb is not None:
            total += (_coord(p, va) - _coord(p, vb)) ** 2
    return math.sqrt(total)


def diverse_ranked(space: BoundSpace, metric: str, maximize: bool, top: int = 3, constants: Any = None,
                   limit: int = MAX_CANDIDATES, floor: float = FLOOR, fork: bool = True,
                   anchors: Sequence[Config] = ()) -> list[Config]:
    """``top`` configurations: the model's best, then far-apart good ones (see the module docstring); ``anchors``
    (configurations run anyway) count as picks already made, and picks among them do not count towards ``top``."""
    first = model_ranked(space, metric, maximize, 1, constants, limit)
    if not first or top <= 1:
        return first
    anchors = [dict(a) for a in anchors]

    def score(cfg: Config) -> float:
        """The model's value as a rate (higher is better): a time's reciprocal, so ratios read alike."""
        v = model_metric(space, cfg, metric, constants)
        if v is None or not np.isfinite(v):
            return float("-inf")
        return v if maximize else 1.0 / v if v > 0 else float("-inf")

    best = score(first[0])
    pool = [(cfg, s) for cfg in candidates(space, limit) if np.isfinite(s := score(cfg))]
    if best <= 0:  # a ratio of model values needs positive values
        return model_ranked(space, metric, maximize, top, constants, limit)
    other = _other_side(pool, first[0]) if fork else None
    pool = [(cfg, s / best) for cfg, s in pool if s >= floor * best]
    cache: dict[tuple[Any, ...], float] = {}

    def value(cfg: Config) -> float:
        key = tuple(sorted(cfg.items()))
        if key not in cache:
            cache[key] = score(cfg)
        return cache[key]

    def acts(cfg: Config, name: str, other: Any) -> bool:
        a, b = value(cfg), value({**cfg, name: other})
        return not (np.isfinite(a) and np.isfinite(b)) or abs(a - b) > SAME * max(abs(a), abs(b), 1e-12)

    picks = [first[0]]
    if other is not None and other not in picks:
        picks.append(other)
    pool = [(cfg, rel) for cfg, rel in pool if cfg not in anchors]

    def new() -> int:
        return sum(p not in anchors for p in picks)

    while new() < top and pool:
        gains = [min(distance(space, cfg, p, acts) for p in [*picks, *anchors]) * rel for cfg, rel in pool]
        i = int(np.argmax(gains))
        if gains[i] <= 0:
            break
        picks.append(_refine(space, score, pool[i][0], picks))
        pool.pop(i)
    return picks


def _other_side(pool: list[tuple[Config, float]], first: Config) -> Config | None:
    """The model's best configuration on the other side of the collective-buffering fork from ``first``
    (``romio_cb_write=disable`` when ``first`` lets collective buffering act, else its best with it on)."""
    if CB not in first:
        return None
    off = first[CB] == "disable"
    side = [(s, i, cfg) for i, (cfg, s) in enumerate(pool) if (cfg.get(CB) == "disable") != off]
    return max(side, key=lambda t: (t[0], -t[1]))[2] if side else None


def _refine(space: BoundSpace, score: Any, cfg: Config, picks: list[Config]) -> Config:
    """``cfg`` climbed on the model when the climb stays in its region (no closer to a pick than half-way)."""
    if space.size() <= MAX_CANDIDATES:
        return cfg
    climbed, _ = coordinate_ascent(space, score, cfg)
    far = min(distance(space, cfg, p) for p in picks)
    return climbed if min(distance(space, climbed, p) for p in picks) >= far / 2 else cfg

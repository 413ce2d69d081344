"""Bridge moves: the midpoint between the incumbent and another of the best configurations so far.

The diverse model start measures far-apart points of the model's ridge (e.g. 128 OSTs with 128 KiB stripes
and 8 OSTs with 2 MiB stripes). Where the truth peaks between them (OSTs that contend beyond 16), neither a
one-step move around the incumbent nor TPE gets there within a small budget; the midpoint does. The
midpoint is taken on a log2 scale for numeric parameters (I/O ridges are products: stripe count x stripe
size, aggregators = stripe count, so they are straight lines there), categorical values from the incumbent.
"""

from __future__ import annotations

import math
from typing import Any

from optuna.trial import FrozenTrial

from autotune.space import BoundParam, BoundSpace

PARTNERS = 3  # bridge from the incumbent to each of the next best distinct configurations ...
WORTH = 0.5  # ... that reach at least half the incumbent's value (at most twice its value when minimising)


def _mid(p: BoundParam, a: Any, b: Any) -> Any:
    """The optuna value of ``p`` half-way between ``a`` and ``b`` (log2 scale for numeric values)."""
    if p.type == "categorical" or a == b:
        return a
    if p.type == "pow2":  # optuna values are the exponents
        return math.floor((int(a) + int(b)) / 2 + 0.5)
    lo, hi = int(p.low), int(p.high)
    if lo >= 1:
        v = round(2 ** ((math.log2(int(a)) + math.log2(int(b))) / 2))
    else:
        v = round((int(a) + int(b)) / 2)
    if not p.log and p.step > 1:
        v = lo + round((v - lo) / p.step) * p.step
    return min(hi, max(lo, int(v)))


def bridge_move(space: BoundSpace, params: dict[str, BoundParam], done: list[FrozenTrial], maximize: bool,
                seen: set[tuple[Any, ...]]) -> dict[str, Any] | None:
    """The untried, feasible midpoint between the incumbent and one of the next ``PARTNERS`` best distinct
    configurations worth it (``WORTH``; the farthest first), at least one doubling from the incumbent, or None."""
    ranked = sorted(done, key=lambda t: float(t.value), reverse=maximize)  # type: ignore[arg-type]
    distinct: list[FrozenTrial] = []
    for t in ranked:
        if all(t.params != d.params for d in distinct):
            distinct.append(t)
        if len(distinct) > PARTNERS:
            break
    if len(distinct) < 2:
        return None
    inc = distinct[0]
    v = float(inc.value)  # type: ignore[arg-type]
    out = []
    for other in distinct[1:]:
        w = float(other.value)  # type: ignore[arg-type]
        if (maximize and w < WORTH * v) or (not maximize and w > v / WORTH):
            continue
        mid = {n: _mid(p, inc.params[n], other.params[n]) for n, p in params.items()}
        steps = sum(abs(_log(p, inc.params[n]) - _log(p, mid[n])) for n, p in params.items())
        key = tuple(sorted(mid.items()))
        if steps >= 1.0 and key not in seen and space.feasible(space.from_optuna(mid)):
            out.append((steps, mid))
    return max(out, key=lambda t: t[0])[1] if out else None


def _log(p: BoundParam, v: Any) -> float:
    """A numeric optuna value on a log2 scale (0 for categorical values: they never differ in a bridge)."""
    if p.type == "categorical":
        return 0.0
    if p.type == "pow2":
        return float(v)
    return math.log2(max(int(v), 1)) if int(p.low) >= 1 else float(v)

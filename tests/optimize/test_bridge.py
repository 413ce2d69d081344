"""Bridge moves: the log-scale midpoint between the incumbent and another of the best configurations."""

from __future__ import annotations

from typing import Any

import optuna

from autotune.optimize._bridge import bridge_move
from autotune.space import BoundSpace


def trial(params: dict[str, Any], value: float, dists: dict[str, Any]) -> optuna.trial.FrozenTrial:
    return optuna.trial.create_trial(params=params, distributions={k: dists[k] for k in params}, value=value)


def test_the_midpoint_of_two_ridge_points_is_on_the_ridge_between_them(wrf_space: BoundSpace) -> None:
    space = wrf_space
    params = {p.optuna_name: p for p in space.active}
    dists = {n: p.distribution() for n, p in params.items()}
    names = {p.name: p.optuna_name for p in space.active}

    def enc(count: int, size_log2: int, aggs: int, cb: str = "automatic") -> dict[str, Any]:
        return {names["lustre.stripe_count"]: count, names["lustre.stripe_size"]: size_log2,
                names["mpiio.cb_nodes"]: aggs, names["mpiio.romio_cb_write"]: cb}

    best, other = enc(128, 17, 128), enc(8, 21, 8, "enable")
    done = [trial(best, 1600.0, dists), trial(other, 1400.0, dists), trial(enc(1, 20, 1), 300.0, dists)]
    mid = bridge_move(space, params, done, True, set())
    assert mid == enc(32, 19, 32)  # log2 midpoints; the categorical value is the incumbent's
    assert bridge_move(space, params, done, True, {tuple(sorted(mid.items()))}) != mid  # tried: another bridge
    near = [trial(best, 1600.0, dists), trial(enc(128, 17, 144), 1500.0, dists)]
    assert bridge_move(space, params, near, True, set()) is None  # neighbours: left to the pattern search
    assert bridge_move(space, params, done[:1], True, set()) is None

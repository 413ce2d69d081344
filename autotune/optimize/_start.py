"""The first trials of a campaign after the default: warm-start and model-ranked configurations."""

from __future__ import annotations

from typing import Any, Protocol

import optuna

from autotune.optimize._prior import model_ranked, scaled_constants
from autotune.optimize._warm import warm_start
from autotune.space import BoundSpace, Config

PRIOR_TOP = 3


class _Objective(Protocol):
    @property
    def metric(self) -> str: ...

    @property
    def maximize(self) -> bool: ...


class StartSpec(Protocol):
    """What the start needs of a campaign: its ``sampler`` mapping and its objective (metric, direction)."""

    @property
    def sampler(self) -> dict[str, Any]: ...

    @property
    def objective(self) -> _Objective: ...


def prior_spec(sampler: dict[str, Any]) -> dict[str, Any]:
    """``sampler.prior`` as a mapping: ``{top, scale}`` (``autotune`` uses the model by default)."""
    raw = sampler.get("prior", sampler.get("name", "autotune") == "autotune")
    if raw is False or raw is None:
        return {"top": 0}
    if raw is True:
        return {"top": PRIOR_TOP}
    if isinstance(raw, int):
        return {"top": raw}
    return {"top": int(raw.get("top", PRIOR_TOP)), "scale": dict(raw.get("scale") or {})}


def initial_configs(c: StartSpec, space: BoundSpace, study: optuna.Study) -> list[Config]:
    """Configurations to enqueue after the default: an earlier campaign's best, then the model's best."""
    out: list[Config] = []
    if c.sampler.get("warm_start"):
        out += warm_start(study, space, dict(c.sampler["warm_start"]))
    prior = prior_spec(c.sampler)
    if prior["top"] > 0:
        constants = scaled_constants(space, prior["scale"]) if prior.get("scale") else None
        out += model_ranked(space, c.objective.metric, c.objective.maximize, prior["top"], constants)
    default = space.default_config()
    unique: list[Config] = []
    for cfg in out:
        if cfg != default and cfg not in unique:
            unique.append(cfg)
    return unique

"""The first trials of a campaign after the default: warm-start and model-ranked configurations."""

from __future__ import annotations

from typing import Any, Protocol

import optuna

from autotune.optimize._diverse import diverse_ranked
from autotune.optimize._prior import model_metric, model_ranked, scaled_constants
from autotune.optimize._warm import warm_start
from autotune.space import BoundSpace, Config

PRIOR_TOP = 4
MIN_MODEL_GAIN = 0.01


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
    """``sampler.prior`` as a mapping: ``{top, scale, refit, diverse}`` (``autotune`` uses the model by default;
    ``refit``: the model in the loop, ``autotune.optimize._inloop``; its picks are spread over the space's
    regions unless ``diverse: false``, see ``_diverse``)."""
    raw = sampler.get("prior", sampler.get("name", "autotune") == "autotune")
    if raw is False or raw is None:
        return {"top": 0}
    if raw is True:
        return {"top": PRIOR_TOP, "diverse": True}
    if isinstance(raw, int):
        return {"top": raw, "diverse": True}
    return {"top": int(raw.get("top", PRIOR_TOP)), "scale": dict(raw.get("scale") or {}), "refit": bool(raw.get("refit")),
            "diverse": bool(raw.get("diverse", True))}


def informative(space: BoundSpace, metric: str, top: Config, constants: Any = None) -> bool:
    """Whether the model tells the configurations apart here: its top pick differs from the default by more than
    ``MIN_MODEL_GAIN``. Where it does not model the mechanisms that matter (on a POSIX file system it does not
    model collective buffering), its ranking is arbitrary and the prior's trials would be wasted."""
    a, b = model_metric(space, top, metric, constants), model_metric(space, space.default_config(), metric, constants)
    return a is not None and b is not None and b > 0 and abs(a / b - 1.0) > MIN_MODEL_GAIN


def initial_configs(c: StartSpec, space: BoundSpace, study: optuna.Study) -> list[Config]:
    """Configurations to enqueue after the default: an earlier campaign's best, then the model's best."""
    out: list[Config] = []
    if c.sampler.get("warm_start"):
        out += warm_start(study, space, dict(c.sampler["warm_start"]))
    prior = prior_spec(c.sampler)
    if prior["top"] > 0 and not prior.get("refit"):  # with refit the sampler proposes them, re-ranked as runs arrive
        constants = scaled_constants(space, prior["scale"]) if prior.get("scale") else None
        rank = diverse_ranked if prior.get("diverse", True) else model_ranked
        ranked = rank(space, c.objective.metric, c.objective.maximize, prior["top"], constants)
        if ranked and informative(space, c.objective.metric, ranked[0], constants):
            out += ranked
    default = space.default_config()
    unique: list[Config] = []
    for cfg in out:
        if cfg != default and cfg not in unique:
            unique.append(cfg)
    return unique

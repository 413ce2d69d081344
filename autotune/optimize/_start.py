"""The first trials of a campaign after the default: warm-start and model-ranked configurations."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import optuna

from autotune.model import cannot_judge, judged_metric
from autotune.optimize._diverse import diverse_ranked
from autotune.optimize._prior import candidates, model_metric, model_ranked, scaled_constants
from autotune.optimize._warm import warm_start
from autotune.space import BoundSpace, Config

PRIOR_TOP = 4
MIN_MODEL_GAIN = 0.01


class _Objective(Protocol):
    @property
    def metric(self) -> str: ...

    @property
    def maximize(self) -> bool: ...

    @property
    def kind(self) -> str | None: ...


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


def informative(space: BoundSpace, metric: str, top: Config, constants: Any = None, sample: int = 64) -> bool:
    """Whether the model tells the configurations apart here: its predictions over a sample of the space (the
    default and its top pick included) spread by more than ``MIN_MODEL_GAIN``. Where it does not model the
    mechanisms that matter its ranking is arbitrary and the prior's trials would be wasted. A default the
    model rates near its best does not make it uninformative: it still knows what to avoid (on this machine
    collective buffering for IOR's blocks, ~10x slower), and its picks say so."""
    values = [model_metric(space, cfg, metric, constants) for cfg in [top, *candidates(space, sample)]]
    known = [v for v in values if v is not None and v > 0]
    return len(known) >= 2 and max(known) / min(known) - 1.0 > MIN_MODEL_GAIN


def model_metric_of(c: StartSpec, space: BoundSpace) -> str | None:
    """The model's name for the campaign's metric (``model.judged_metric``), or None when it predicts no such thing."""
    return judged_metric(c.objective.metric, c.objective.kind, space.pattern.phases)[0]


Memo = dict[str, dict[str, tuple[list[Config], str]]]  # one bound space's model starts: by objective, by anchors


def model_start(c: StartSpec, space: BoundSpace, anchors: Sequence[Config] = (),
                memo: Memo | None = None) -> tuple[list[Config], str]:
    """The model's first picks for the campaign (best first), and why there are none when the model cannot judge
    the campaign (one line; '' when it can, or when the campaign does not use the model's prior). ``anchors``:
    the configurations the campaign runs anyway (the default, the rules of thumb), which the diverse picks
    spread away from (``_diverse``). ``memo`` (kept with ``space``, which it must not outlive): the ranking is
    deterministic and takes seconds on a large space, so a dry run that opens the study several times ranks once."""
    if memo is None:
        return _model_start(c, space, anchors)
    by_anchors = memo.setdefault(_objective_key(c), {})
    key = repr(list(anchors))
    if key not in by_anchors:
        by_anchors[key] = _model_start(c, space, anchors)
    picks, why = by_anchors[key]
    return [dict(p) for p in picks], why


def model_verdict(c: StartSpec, space: BoundSpace, memo: Memo | None = None) -> str:
    """``model_start``'s reason alone ('' when the model judges the campaign); it does not depend on the anchors,
    so any start in ``memo`` answers."""
    known = (memo or {}).get(_objective_key(c))
    return next(iter(known.values()))[1] if known else model_start(c, space, memo=memo)[1]


def _objective_key(c: StartSpec) -> str:
    return repr((c.objective.metric, c.objective.kind, c.objective.maximize, prior_spec(c.sampler)))


def _model_start(c: StartSpec, space: BoundSpace, anchors: Sequence[Config]) -> tuple[list[Config], str]:
    prior = prior_spec(c.sampler)
    if prior["top"] <= 0:
        return [], ""
    metric, why = judged_metric(c.objective.metric, c.objective.kind, space.pattern.phases)
    if metric is None:
        return [], why
    blind = cannot_judge(p.name for p in space.active)  # left to the sampler: no model prior there
    if space.active and len(blind) == len(space.active):
        return [], next(iter(blind.values()))
    constants = scaled_constants(space, prior["scale"]) if prior.get("scale") else None
    if prior.get("diverse", True):
        ranked = diverse_ranked(space, metric, c.objective.maximize, prior["top"], constants, anchors=anchors)
    else:
        ranked = model_ranked(space, metric, c.objective.maximize, prior["top"], constants)
    if not ranked:
        return [], f"the model cannot predict {metric} for this pattern on {space.fs.kind} {space.fs.name!r}"
    if not informative(space, metric, ranked[0], constants):
        return [], (f"the model rates the configurations of this space within {MIN_MODEL_GAIN:.0%} of each other: "
                    "its picks would be arbitrary")
    return [{k: v for k, v in cfg.items() if k not in blind} for cfg in ranked], ""


def model_line(why: str) -> str:
    """The one line ``check``, ``tune --dry-run`` and ``tune`` print when the model cannot judge the campaign."""
    return f"model: not used for the first picks: {why}; the sampler searches without it"


def initial_configs(c: StartSpec, space: BoundSpace, study: optuna.Study,
                    say: Any = None, anchors: Sequence[Config] = (), memo: Memo | None = None) -> list[Config]:
    """Configurations to enqueue after the default: an earlier campaign's best, then the model's best
    (``say``: called with ``model_line`` when the model cannot judge the campaign; ``anchors``: the
    configurations run anyway, the default among them, and ``memo``: see ``model_start``)."""
    out: list[Config] = []
    if c.sampler.get("warm_start"):
        out += warm_start(study, space, dict(c.sampler["warm_start"]))
    picks, why = model_start(c, space, [space.default_config(), *anchors], memo)
    if why and say is not None:
        say(model_line(why))
    if not prior_spec(c.sampler).get("refit"):  # with refit the sampler proposes them, re-ranked as runs arrive
        out += picks
    default = space.default_config()
    unique: list[Config] = []
    for cfg in out:
        if cfg != default and cfg not in unique:
            unique.append(cfg)
    return unique

"""Optuna samplers by name (``autotune`` by default: TPE with pattern-search moves, see
``autotune.optimize.AutotuneSampler``; TPE, random, grid, GP, CMA-ES, GA selectable).

``SAMPLERS`` maps each name to a ``SamplerPlugin`` class; ``make_sampler`` checks the common keys (seed,
startup_trials) and the plug-in's options (its ``schema``) once and calls its ``build``.
"""

from __future__ import annotations

import abc
import importlib.util
import inspect
import zlib
from dataclasses import dataclass
from typing import Any

import optuna

from autotune._registry import NOT_ONE_OF, Option, Plugin, Registry
from autotune.errors import ConfigError
from autotune.optimize._ga import GASampler
from autotune.optimize._inloop import ModelArm
from autotune.optimize._local import AutotuneSampler
from autotune.optimize._prior import scaled_constants
from autotune.optimize._start import prior_spec
from autotune.space import BoundSpace

DEFAULT_SAMPLER = "autotune"
# With two objectives (``objective.cost``): these samplers optimise one objective only and are refused, and the
# autotune sampler (its pattern-search moves need one incumbent value) falls back to TPE's multi-objective mode.
SINGLE_OBJECTIVE_ONLY = frozenset({"cmaes", "ga"})
MULTI_OBJECTIVE_FALLBACK = {"autotune": "tpe"}
# ``options.gp_trials: N``: the autotune sampler's model phase is a GP for the first N trials (more sample-efficient
# from a cold start, ~0.3 s per proposal here), then TPE (cheap at any length). Off by default: docs/evaluation/optimizer.md.
GP_TRIALS = 0


class AskTellGridSampler(optuna.samplers.GridSampler):
    """Optuna's grid sampler without its ``study.stop()`` at exhaustion (that only works in ``optimize``);
    the campaign loop asks ``is_exhausted`` itself."""

    def after_trial(self, study: optuna.Study, trial: optuna.trial.FrozenTrial, state: optuna.trial.TrialState,
                    values: Any) -> None:
        return None


@dataclass
class SamplerArgs:
    """What a sampler factory gets: the bound space, the seed, ``startup_trials``, the extra ``options``, the
    ``prior`` mapping and the objective (``metric``, ``maximize``; the model in the loop needs them)."""

    name: str
    space: BoundSpace
    seed: int | None
    startup: int | None
    options: dict[str, Any]
    prior: dict[str, Any] | None = None
    metric: str | None = None
    maximize: bool = True

    def startup_kw(self) -> dict[str, Any]:
        return {} if self.startup is None else {"n_startup_trials": self.startup}


def _needs(module: str, message: str) -> None:
    if importlib.util.find_spec(module) is None:
        raise ConfigError(message)


def constructor_options(cls: type, *skip: str) -> tuple[Option, ...]:
    """The keyword arguments of a sampler class as ``Option`` s (typed by their default: a bool is ``true`` or
    ``false``, an int an integer, a float a number; any other default accepts any value the class checks)."""
    schema = []
    for p in inspect.signature(cls).parameters.values():
        if p.name in skip or p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
            continue
        d = p.default
        schema.append(Option.flag(p.name) if isinstance(d, bool) else Option.integer(p.name) if isinstance(d, int)
                      else Option.number(p.name) if isinstance(d, float) else Option(p.name))
    return tuple(schema)


class SamplerPlugin(Plugin, abc.ABC):
    """A sampler by name: builds the Optuna sampler a campaign's ``sampler:`` asks for.

    Subclasses set ``name`` and ``schema`` (the keys of ``sampler.options``; ``make_sampler`` checks them before
    ``build``) and implement ``build``. Contract (checked by ``autotune.testing.contracts``): ``build`` returns an
    ``optuna.samplers.BaseSampler`` that proposes configurations inside ``args.space``; with the same ``args.seed``
    it proposes the same configurations; a missing optional dependency is a one-line ``ConfigError`` naming it.
    """

    @abc.abstractmethod
    def build(self, a: SamplerArgs) -> optuna.samplers.BaseSampler:
        """The Optuna sampler for ``a`` (``a.options`` already checked against ``schema``)."""


class TpePlugin(SamplerPlugin):
    name = "tpe"
    schema = constructor_options(optuna.samplers.TPESampler, "seed")

    def build(self, a: SamplerArgs) -> optuna.samplers.BaseSampler:
        kw: dict[str, Any] = {"seed": a.seed, "multivariate": True, "group": False,
                              "n_startup_trials": a.startup if a.startup is not None else 5}
        return optuna.samplers.TPESampler(**{**kw, **a.options})


LOCAL_OPTIONS = (Option.number("local_fraction", "share of proposals that are pattern-search moves"),
                 Option.integer("warmup", "trials before the first move"),
                 Option.integer("gp_trials", "a GP for the first N trials"),
                 Option.flag("bridge", "bridge moves between good configurations"))


class AutotunePlugin(SamplerPlugin):
    name = "autotune"
    schema = LOCAL_OPTIONS + TpePlugin.schema

    def build(self, a: SamplerArgs) -> optuna.samplers.BaseSampler:
        local = {k: a.options.pop(k) for k in ("local_fraction", "warmup", "gp_trials", "bridge") if k in a.options}
        tpe = TpePlugin().build(a)
        gp_trials = local.pop("gp_trials", GP_TRIALS)
        early = None
        if gp_trials:
            _needs("torch", "sampler.options.gp_trials needs PyTorch: install it with `make setup-gp`")
            early = optuna.samplers.GPSampler(seed=a.seed, n_startup_trials=a.startup if a.startup is not None else 5)
        model = None
        if a.prior and a.prior.get("refit") and a.metric is not None:
            _needs("scipy", "sampler.prior.refit needs scipy: pip install 'autotune[model]'")
            start = scaled_constants(a.space, a.prior["scale"]) if a.prior.get("scale") else None
            model = ModelArm(a.space, a.metric, a.maximize, top=int(a.prior["top"]), start=start, seed=a.seed or 0)
        try:
            return AutotuneSampler(a.space, tpe, seed=a.seed, early=early, early_trials=int(gp_trials), model=model,
                                   **local)
        except ValueError as exc:
            raise ConfigError(f"sampler.options: {exc}") from None


class GaPlugin(SamplerPlugin):
    name = "ga"
    schema = constructor_options(GASampler, "seed")

    def build(self, a: SamplerArgs) -> optuna.samplers.BaseSampler:
        return GASampler(seed=a.seed, **a.options)


class RandomPlugin(SamplerPlugin):
    name = "random"

    def build(self, a: SamplerArgs) -> optuna.samplers.BaseSampler:
        return optuna.samplers.RandomSampler(seed=a.seed)


class GridPlugin(SamplerPlugin):
    name = "grid"

    def build(self, a: SamplerArgs) -> optuna.samplers.BaseSampler:
        grid = {p.optuna_name: [p.encode(v) for v in p.values()] for p in a.space.active}
        return AskTellGridSampler(grid, seed=a.seed)


class Nsga2Plugin(SamplerPlugin):
    """NSGA-II (multi-objective evolutionary; ``options``: population_size, mutation_prob, crossover_prob...)."""

    name = "nsga2"
    schema = constructor_options(optuna.samplers.NSGAIISampler)

    def build(self, a: SamplerArgs) -> optuna.samplers.BaseSampler:
        return optuna.samplers.NSGAIISampler(**{"seed": a.seed, **a.options})


class GpPlugin(SamplerPlugin):
    name = "gp"
    schema = constructor_options(optuna.samplers.GPSampler)

    def build(self, a: SamplerArgs) -> optuna.samplers.BaseSampler:
        _needs("torch", "sampler gp needs PyTorch: install it with `make setup-gp` (or pip install torch)")
        return optuna.samplers.GPSampler(**{"seed": a.seed, **a.startup_kw(), **a.options})


class CmaesPlugin(SamplerPlugin):
    name = "cmaes"
    schema = constructor_options(optuna.samplers.CmaEsSampler)

    def build(self, a: SamplerArgs) -> optuna.samplers.BaseSampler:
        _needs("cmaes", "sampler cmaes needs the cmaes package: pip install 'autotune[samplers]'")
        kw = {"seed": a.seed, "warn_independent_sampling": False, **a.startup_kw()}
        return optuna.samplers.CmaEsSampler(**{**kw, **a.options})


SAMPLERS: Registry[type[SamplerPlugin]] = Registry("sampler", "sampler.name", NOT_ONE_OF, base=SamplerPlugin)
for _cls in (AutotunePlugin, TpePlugin, RandomPlugin, GridPlugin, GpPlugin, CmaesPlugin, GaPlugin, Nsga2Plugin):
    SAMPLERS.register(_cls.name, _cls)


def sampler_for(spec: dict[str, Any], objectives: int) -> tuple[dict[str, Any], str | None]:
    """The sampler spec for ``objectives`` objectives and a notice when it is not the one asked for."""
    name = str(spec.get("name", DEFAULT_SAMPLER))
    if objectives < 2 or name not in MULTI_OBJECTIVE_FALLBACK:
        return spec, None
    to = MULTI_OBJECTIVE_FALLBACK[name]
    options = {k: v for k, v in dict(spec.get("options") or {}).items()
               if k not in ("local_fraction", "warmup", "gp_trials")}
    return ({**spec, "name": to, "options": options},
            f"sampler {name} optimises one objective: this two-objective campaign (metric, cost) uses {to}'s "
            "multi-objective mode instead")


def resume_seed(seed: int, history: int) -> int:
    """The seed of a sampler resumed on a study holding ``history`` trials: ``seed`` itself for a fresh study
    (a run from the same start is reproduced), else a 31-bit value derived from both, so that a resumed
    seeded sampler continues with new draws instead of replaying the sequence it started with."""
    return seed if history <= 0 else zlib.crc32(f"{seed}/resumed-after/{history}".encode()) & 0x7FFFFFFF


def make_sampler(spec: dict[str, Any], space: BoundSpace, metric: str | None = None, maximize: bool = True,
                 objectives: int = 1, history: int = 0) -> optuna.samplers.BaseSampler:
    """Build the sampler ``spec['name']`` with ``seed``, ``startup_trials`` and extra ``options``; ``metric`` and
    ``maximize`` (the campaign's objective) let ``prior.refit`` put the model in the loop (for ``objectives`` > 1
    the autotune sampler falls back to TPE: ``sampler_for``). ``history``: trials already in the study, for
    ``resume_seed``."""
    spec = sampler_for(spec, objectives)[0]
    name = str(spec.get("name", DEFAULT_SAMPLER))
    plugin = SAMPLERS.get(name)
    seed = spec.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise ConfigError(f"sampler.seed: {seed!r} is not an integer")
    if seed is not None:
        seed = resume_seed(seed, history)
    options = plugin.check_options(spec.get("options"), "sampler.options")
    try:
        return plugin().build(SamplerArgs(name, space, seed, spec.get("startup_trials"), options, prior_spec(spec),
                                          metric, maximize))
    except TypeError as exc:
        raise ConfigError(f"sampler.options: {exc}") from None

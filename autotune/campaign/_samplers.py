"""Optuna samplers by name (``autotune`` by default: TPE with pattern-search moves, see
``autotune.optimize.AutotuneSampler``; TPE, random, grid, GP, CMA-ES, GA selectable)."""

from __future__ import annotations

import importlib.util
from typing import Any

import optuna

from autotune.errors import ConfigError, RegistryError
from autotune.space import BoundSpace


class AskTellGridSampler(optuna.samplers.GridSampler):
    """Optuna's grid sampler without its ``study.stop()`` at exhaustion (that only works in ``optimize``);
    the campaign loop asks ``is_exhausted`` itself."""

    def after_trial(self, study: optuna.Study, trial: optuna.trial.FrozenTrial, state: optuna.trial.TrialState,
                    values: Any) -> None:
        return None


# ``options.gp_trials: N``: the autotune sampler's model phase is a GP for the first N trials (more sample-efficient
# from a cold start, ~0.3 s per proposal here), then TPE (cheap at any length). Off by default: see README.
GP_TRIALS = 0


def make_sampler(spec: dict[str, Any], space: BoundSpace) -> optuna.samplers.BaseSampler:
    """Build the sampler ``spec['name']`` with ``seed``, ``startup_trials`` and extra ``options``."""
    name = str(spec.get("name", "autotune"))
    seed = spec.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise ConfigError(f"sampler.seed: {seed!r} is not an integer")
    options = dict(spec.get("options") or {})
    startup = spec.get("startup_trials")
    try:
        if name in ("tpe", "autotune"):
            local = {k: options.pop(k) for k in ("local_fraction", "warmup", "gp_trials")
                     if name == "autotune" and k in options}
            kw: dict[str, Any] = {"seed": seed, "multivariate": True, "group": False,
                                  "n_startup_trials": startup if startup is not None else 5}
            tpe = optuna.samplers.TPESampler(**{**kw, **options})
            if name == "tpe":
                return tpe
            from autotune.optimize import AutotuneSampler

            gp_trials = local.pop("gp_trials", GP_TRIALS)
            early = None
            if gp_trials:
                if importlib.util.find_spec("torch") is None:
                    raise ConfigError("sampler.options.gp_trials needs PyTorch: install it with `make setup-gp`")
                early = optuna.samplers.GPSampler(seed=seed, n_startup_trials=kw["n_startup_trials"])
            try:
                return AutotuneSampler(space, tpe, seed=seed, early=early, early_trials=int(gp_trials), **local)
            except ValueError as exc:
                raise ConfigError(f"sampler.options: {exc}") from None
        if name == "ga":
            from autotune.optimize import GASampler

            return GASampler(seed=seed, **options)
        if name in ("random", "grid") and options:
            raise ConfigError(f"sampler.options: {sorted(options)}: sampler {name} takes no options")
        if name == "random":
            return optuna.samplers.RandomSampler(seed=seed)
        if name == "grid":
            grid = {p.optuna_name: [p.encode(v) for v in p.values()] for p in space.active}
            return AskTellGridSampler(grid, seed=seed)
        if name == "gp":
            if importlib.util.find_spec("torch") is None:
                raise ConfigError("sampler gp needs PyTorch: install it with `make setup-gp` (or pip install torch)")
            kw = {"seed": seed}
            if startup is not None:
                kw["n_startup_trials"] = startup
            return optuna.samplers.GPSampler(**{**kw, **options})
        if name == "cmaes":
            if importlib.util.find_spec("cmaes") is None:
                raise ConfigError("sampler cmaes needs the cmaes package (pip install cmaes)")
            kw = {"seed": seed, "warn_independent_sampling": False}
            if startup is not None:
                kw["n_startup_trials"] = startup
            return optuna.samplers.CmaEsSampler(**{**kw, **options})
    except TypeError as exc:
        raise ConfigError(f"sampler.options: {exc}") from None
    raise RegistryError(f"sampler: unknown sampler {name!r} (known: autotune, tpe, random, grid, gp, cmaes, ga)")

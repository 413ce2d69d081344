"""The ``autotune`` sampler's search phase: TPE interleaved with pattern-search moves around the incumbent.

I/O tuning surfaces have narrow ridges: on Lustre the aggregator count must follow the stripe count
(KAUST Shaheen II training: aggregators = stripe count), and the stripe size must follow the transfer size. TPE models
each region of the space but rarely lands exactly on a ridge; a pattern search walks along one. So
after ``warmup`` completed trials, a ``local_fraction`` of the proposals are moves from the incumbent
(the best configuration so far): one parameter one step (a power-of-two or categorical neighbour, an
integer x2, /2, x1.25, /1.25 or +-1) or two numeric parameters one x2 step together (diagonal moves,
which follow ridges such as aggregators = stripe count). The move that produced the incumbent is
tried again first (momentum); the others in seeded random order. Moves that break a rule or were
already run are skipped; when the incumbent has no untried neighbour, TPE proposes.

With a ``model`` (``sampler.prior.refit: true``, ``autotune.optimize._inloop.ModelArm``) the model proposes too:
the first ``top`` proposals after the default, then its share; it is refitted before each trial, and every
trial records the constants in force (``model_constants``, ``model_moved``, ``model_rho``, ``model_share``) and
who proposed it (``proposed_by``: model, pattern or tpe).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import optuna
from optuna.distributions import BaseDistribution
from optuna.trial import FrozenTrial, TrialState

from autotune import trialrecord
from autotune.optimize._bridge import bridge_move
from autotune.optimize._inloop import ModelArm
from autotune.space import CATALOGUE, BoundParam, BoundSpace

Move = tuple[tuple[str, str], ...]  # ((optuna name, step), ...)
_MOVE_ATTR = "autotune:move"


def _steps(p: BoundParam) -> list[str]:
    if p.type == "categorical":
        return [f"={i}" for i in range(len(p.choices))]
    if p.type == "pow2":
        return ["+1", "-1"]
    return ["*2", "/2", "*1.25", "/1.25", "+1", "-1"]


def _apply(p: BoundParam, raw: Any, step: str, params: dict[str, Any]) -> Any | None:
    """The optuna value of ``p`` after ``step`` from ``raw`` (None when it leaves the range or stays);
    ``@name`` takes the value of another parameter (``params``, by optuna name)."""
    if step.startswith("@"):
        other = params[step[1:]]
        value = 1 << int(other) if step[1:].startswith("log2(") else other
        enc = p.encode(value) if p.contains(value) else None
        return None if enc is None or enc == raw else enc
    if p.type == "categorical":
        choice = p.choices[int(step[1:])]
        return None if choice == raw else choice
    v = int(raw)
    if p.type == "pow2":
        exp = v + (1 if step == "+1" else -1)
        return exp if p.low <= exp <= p.high else None
    op, k = step[0], float(step[1:])
    if op == "*":
        new = max(v + 1, math.ceil(v * k)) if k > 1 else v
    elif op == "/":
        new = min(v - 1, math.floor(v / k))
    else:
        new = v + int(k) if op == "+" else v - int(k)
    if not p.log and p.step > 1:
        new = p.low + round((new - p.low) / p.step) * p.step
    new = min(p.high, max(p.low, int(new)))
    return None if new == v else new


def _double(p: BoundParam, up: bool) -> str:
    return ("+1" if up else "-1") if p.type == "pow2" else ("*2" if up else "/2")


class AutotuneSampler(optuna.samplers.BaseSampler):
    """TPE (``base``) with pattern-search moves around the incumbent; see the module docstring.

    Rules are checked on the moves (``space.feasible``), so no move is wasted on an infeasible
    configuration; TPE's own proposals are checked by the campaign loop as for any sampler.
    """

    def __init__(self, space: BoundSpace, base: optuna.samplers.BaseSampler, *, seed: int | None = None,
                 warmup: int = 4, local_fraction: float = 0.5, early: optuna.samplers.BaseSampler | None = None,
                 early_trials: int = 0, model: ModelArm | None = None, bridge: bool = True) -> None:
        if warmup < 1 or not 0.0 <= local_fraction <= 1.0 or early_trials < 0:
            raise ValueError("AutotuneSampler: warmup >= 1, 0 <= local_fraction <= 1 and early_trials >= 0")
        self.space, self.base, self.warmup, self.local_fraction = space, base, warmup, local_fraction
        self.early, self.early_trials, self.model, self.bridge = early, early_trials, model, bridge
        self._rng = np.random.default_rng(seed)
        self._params = {p.optuna_name: p for p in space.active}

    def _samplers(self) -> list[optuna.samplers.BaseSampler]:
        return [self.base] + ([self.early] if self.early is not None else [])

    def _model_sampler(self, study: optuna.Study) -> optuna.samplers.BaseSampler:
        """``early`` (a GP) while the history is short, ``base`` (TPE) after ``early_trials`` trials."""
        if self.early is not None and len(study.get_trials(deepcopy=False)) < self.early_trials:
            return self.early
        return self.base

    def reseed_rng(self) -> None:
        self._rng = np.random.default_rng()
        for s in self._samplers():
            s.reseed_rng()

    def infer_relative_search_space(self, study: optuna.Study, trial: FrozenTrial) -> dict[str, BaseDistribution]:
        return {p.optuna_name: p.distribution() for p in self.space.active}

    def sample_relative(self, study: optuna.Study, trial: FrozenTrial,
                        search_space: dict[str, BaseDistribution]) -> dict[str, Any]:
        trials = study.get_trials(deepcopy=False)
        done = self._done(trials)
        if self.model is not None and done:
            n_model = sum(1 for t in trials if trialrecord.read(t).proposed_by == "model")
            if self.model.turn(n_model, len(done)):
                cfg = self.model.propose({tuple(sorted(t.params.items())) for t in trials if t.params})
                if cfg is not None:
                    self._source(study, trial, "model")
                    return self.space.to_optuna(cfg)
        if len(done) >= self.warmup and self._local_turn(len(done)):
            move = self._local_move(study, trials, done)
            if move is not None:
                params, label = move
                study._storage.set_trial_system_attr(trial._trial_id, _MOVE_ATTR, label)
                self._source(study, trial, "pattern")
                return params
        elif len(done) >= self.warmup and self.bridge:  # the TPE turn: a bridge first (optimize/_bridge.py)
            seen = {tuple(sorted(t.params.items())) for t in trials if t.params}
            bridged = bridge_move(self.space, self._params, done,
                                  study.direction == optuna.study.StudyDirection.MAXIMIZE, seen)
            if bridged is not None:
                study._storage.set_trial_system_attr(trial._trial_id, _MOVE_ATTR, "bridge")
                self._source(study, trial, "bridge")
                return bridged
        self._source(study, trial, "tpe")
        model = self._model_sampler(study)
        # only this sampler's space: a parameter outside it is sampled independently (Optuna's contract)
        model_space = {k: v for k, v in model.infer_relative_search_space(study, trial).items() if k in search_space}
        return model.sample_relative(study, trial, model_space) if model_space else {}

    def sample_independent(self, study: optuna.Study, trial: FrozenTrial, param_name: str,
                           param_distribution: BaseDistribution) -> Any:
        return self.base.sample_independent(study, trial, param_name, param_distribution)

    def before_trial(self, study: optuna.Study, trial: FrozenTrial) -> None:
        for s in self._samplers():
            s.before_trial(study, trial)
        if self.model is not None:  # refit to what completed so far; the trial records the constants in force
            done = self._done(study.get_trials(deepcopy=False))
            self.model.update(done)
            trialrecord.write_stored(study._storage, trial._trial_id, **self.model.attrs(len(done)))

    def _done(self, trials: list[FrozenTrial]) -> list[FrozenTrial]:
        return [t for t in trials if t.state == TrialState.COMPLETE and t.value is not None
                and trialrecord.read(t).ran and all(k in t.params for k in self._params)]

    def _source(self, study: optuna.Study, trial: FrozenTrial, source: str) -> None:
        if self.model is not None:
            trialrecord.write_stored(study._storage, trial._trial_id, proposed_by=source)

    def after_trial(self, study: optuna.Study, trial: FrozenTrial, state: TrialState,
                    values: Sequence[float] | None) -> None:
        for s in self._samplers():
            s.after_trial(study, trial, state, values)

    def _local_turn(self, n_done: int) -> bool:
        """Deterministic interleaving: ``local_fraction`` of the proposals after warm-up are local."""
        k = n_done - self.warmup
        return math.floor((k + 1) * self.local_fraction) > math.floor(k * self.local_fraction)

    def _aligned(self) -> tuple[list[Move], list[Move]]:
        """``a := b`` and ``b := a`` for aligned pairs (catalogue ``aligns_with``), alone and with a categorical change."""
        by_name = {p.name: p for p in self.space.active}
        pairs = [(by_name[a].optuna_name, by_name[b].optuna_name) for a in by_name
                 for b in CATALOGUE[a].aligns_with if a in CATALOGUE and b in by_name]
        base: list[Move] = [m for a, b in pairs for m in (((a, f"@{b}"),), ((b, f"@{a}"),))]
        cats = [(n, s) for n, p in self._params.items() if p.type == "categorical" for s in _steps(p)]
        return base, [(*m, c) for m in base for c in cats]

    def _moves(self, quiet: set[str]) -> list[Move]:
        """Every move; parameters in ``quiet`` (their hint had no effect at the incumbent) move only with another."""
        names = list(self._params)
        single: list[Move] = [((n, s),) for n in names if n not in quiet for s in _steps(self._params[n])]
        numeric = [n for n in names if self._params[n].type != "categorical"]
        diag: list[Move] = []
        for a, b in itertools.combinations(numeric, 2):
            pa, pb = self._params[a], self._params[b]
            for ua, ub in ((True, True), (False, False), (True, False), (False, True)):
                diag.append(((a, _double(pa, ua)), (b, _double(pb, ub))))
        return single + diag

    def _local_move(self, study: optuna.Study, trials: list[FrozenTrial],
                    done: list[FrozenTrial]) -> tuple[dict[str, Any], str] | None:
        maximize = study.direction == optuna.study.StudyDirection.MAXIMIZE
        inc = (max if maximize else min)(done, key=lambda t: float(t.value))  # type: ignore[arg-type]
        seen = {tuple(sorted(t.params.items())) for t in trials if t.params}
        off = set(trialrecord.read(inc).hints_not_in_effect)
        quiet = {n for n, p in self._params.items() if CATALOGUE.get(p.name) and CATALOGUE[p.name].mpi_info in off}
        aligned, compound = self._aligned()
        moves = self._moves(quiet) + compound
        order = aligned + [moves[int(i)] for i in self._rng.permutation(len(moves))]
        last = inc.system_attrs.get(_MOVE_ATTR)
        if last:
            order.sort(key=lambda m: _label(m) != last)  # momentum: the move that found the incumbent first
        for move in order:
            params = dict(inc.params)
            for name, step in move:
                new = _apply(self._params[name], params[name], step, params)
                if new is None:
                    break
                params[name] = new
            else:
                if tuple(sorted(params.items())) in seen or not self.space.feasible(self.space.from_optuna(params)):
                    continue
                return params, _label(move)
        return None


def _label(move: Move) -> str:
    return " ".join(f"{n}{s}" for n, s in move)

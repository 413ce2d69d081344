"""What runs instead of a proposal that repeats a measured configuration: the untried configuration nearest to it.

A sampler may come back to configurations it has measured (TPE and the local search do on small or integer
spaces). Such a proposal is not run and does not count against ``budget.trials``
(``_resume.settle_unneeded``); in its place the loop queues the feasible configuration that no trial has
tried yet (completed, failed, running or queued) and that lies nearest to the proposal, in the space's
normalised coordinates (each numeric parameter's range on [0, 1], on a log2 scale where it spans powers of
two; a categorical change 0.5; settings that cannot act ignored: ``autotune.optimize.distance``). The
sampler's intent (where it wanted to look) is kept, and the budget buys a new measurement. Configurations that
are physical twins of a tried one (they differ only in settings that cannot act, e.g. aggregators with
collective buffering disabled: the same run) are not candidates. On a space small enough to enumerate
(``feasible_count``) every feasible configuration is a candidate, so a campaign whose budget covers the space
measures every physically distinct configuration of it; on a larger space the candidates are a fixed sample of
it (``optimize.candidates``). A long integer range (e.g. burst-buffer nodes 1..208) is first offered at its
powers of two; once those are tried, at every value. None is left: the search has tried everything it can reach.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import optuna
from optuna.trial import TrialState

from autotune import trialrecord
from autotune.campaign.study import _resume
from autotune.optimize import candidates, distance
from autotune.space import BoundSpace, Config

SAMPLE = 2000  # candidates drawn on a space too large to enumerate
FULL_VALUES = 4096  # an integer range this long is searched value by value once its powers of two are tried


def _key(params: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted(params.items()))


def tried(study: optuna.Study) -> set[tuple[tuple[str, Any], ...]]:
    """The Optuna parameters of every configuration a trial ran, runs or is queued to run."""
    out = set()
    for t in study.get_trials(deepcopy=False):
        if t.state in (TrialState.RUNNING, TrialState.WAITING):
            fixed = t.system_attrs.get("fixed_params")
            params = t.params or (fixed if isinstance(fixed, dict) else {})
        elif t.state in (TrialState.COMPLETE, TrialState.FAIL) and trialrecord.read(t).ran:
            params = t.params
        else:
            continue
        if params:
            out.add(_key(params))
    return out


def _pools(space: BoundSpace, seed: int) -> Iterator[Iterable[Config]]:
    """The candidates, coarse first: the space's grid (long integer ranges thinned to powers of two), then, when
    a range was thinned, every value of it (a sample when that grid is large)."""
    if _resume.feasible_count(space) is not None:
        yield space.grid()
    else:
        yield candidates(space, SAMPLE, seed)
    if space.size(FULL_VALUES) > space.size():
        yield candidates(space, SAMPLE, seed, max_values=FULL_VALUES)


def nearest_untried(study: optuna.Study, space: BoundSpace, proposal: Config) -> Config | None:
    """The untried feasible configuration nearest to ``proposal`` (see the module docstring), or None."""
    done = tried(study)
    done_physical = {_resume.physical_key(space, space.from_optuna(dict(k))) for k in done}
    for pool in _pools(space, seed=len(done)):
        best: tuple[float, int] | None = None
        pick: Config | None = None
        for i, cfg in enumerate(pool):
            if _key(space.to_optuna(cfg)) in done or _resume.physical_key(space, cfg) in done_physical:
                continue
            rank = (distance(space, proposal, cfg), i)
            if best is None or rank < best:
                best, pick = rank, cfg
        if pick is not None:
            return pick
    return None

"""The model in the loop (``sampler.prior.refit: true``): the model's constants refitted to the campaign's own
measurements as they arrive, its proposals re-ranked with them, and its share of the proposals shrunk while the
measurements contradict it.

Refit: whenever a trial completes (every time up to ``REFIT_ALWAYS`` completed trials, then each time their count
has grown by ``REFIT_GROWTH``), ``autotune.model.fit_constants`` (the fitter of ``autotune model fit``) fits the
target kind's constants (``FIT_NAMES``) to the completed trials (at most ``MAX_RUNS``: the best half and the most
recent), bounded to x1/20..x20 of the start values (the profile's, or ``prior.scale``'s) and regularised toward
them, from the previous fit, in at most ``MAX_NFEV`` evaluations.
Re-rank: a pool of configurations (the model's top picks under the start constants and a fixed random sample of
the space) is ranked with the refitted constants and the best is climbed by coordinate ascent; the model's
proposal is the best-ranked configuration not yet run.

The share rule (``share``): the first ``top`` proposals after the default are the model's (the refitting start,
each re-ranked after the one before it ran). Afterwards the model gets

    share = SHARE_MAX * clip((rho - RHO_LOW) / (RHO_HIGH - RHO_LOW), 0, 1) * 0.5 ** losses   (0 below SHARE_MIN)

of the proposals, where ``rho`` is the Spearman rank correlation between the refitted model's predictions and the
measured values of the completed trials (no share until ``MIN_RHO_TRIALS`` are complete) and ``losses`` counts
the model's proposals since the last one that beat every trial before it by more than ``WIN_MARGIN`` (3%). A
proposal is the model's when the accumulated share reaches 1; the others are the search's (TPE and pattern
search, ``AutotuneSampler``).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from optuna.trial import FrozenTrial

from autotune import trialrecord
from autotune.errors import AutotuneError
from autotune.model import FIT_NAMES, PRIOR_WEIGHT, SPAN, MeasuredRun, constants_for, fit_constants, predicted
from autotune.optimize._adaptive import DEFAULT_MARGIN
from autotune.optimize._prior import MAX_CANDIDATES, candidates, coordinate_ascent, model_metric, model_ranked
from autotune.optimize._start import informative
from autotune.space import BoundSpace, Config

REFIT_ALWAYS = 10
REFIT_GROWTH = 1.2
MAX_RUNS = 32
MAX_NFEV = 8
POOL = 400
SHARE_MAX, SHARE_MIN = 0.5, 0.05
RHO_LOW, RHO_HIGH = 0.2, 0.8
MIN_RHO_TRIALS = 5
WIN_MARGIN = DEFAULT_MARGIN  # 3%: one run's typical shortfall on a quiet shared file system
MOVED = 0.05  # a constant "moved" when it is more than 5% away from its start value
SOURCE_ATTR = trialrecord.PROPOSED_BY  # the trial record field naming who proposed a trial


def share(rho: float, losses: int) -> float:
    """The model's share of the proposals after the start (see the module docstring)."""
    trust = min(1.0, max(0.0, (rho - RHO_LOW) / (RHO_HIGH - RHO_LOW))) if math.isfinite(rho) else 0.0
    s = SHARE_MAX * trust * 0.5 ** max(0, losses)
    return s if s >= SHARE_MIN else 0.0


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    """Spearman rank correlation (average ranks for ties); nan when either side is constant or too short."""
    if len(a) < 3:
        return math.nan
    ra, rb = _ranks(a), _ranks(b)
    if np.std(ra) == 0 or np.std(rb) == 0:
        return math.nan
    return float(np.corrcoef(ra, rb)[0, 1])


def _ranks(x: Sequence[float]) -> np.ndarray:
    """Ranks with ties sharing their average rank."""
    v = np.asarray(x, dtype=float)
    order = np.argsort(v, kind="stable")
    ranks = np.empty(len(v))
    ranks[order] = np.arange(len(v), dtype=float)
    _, inverse, counts = np.unique(v, return_inverse=True, return_counts=True)
    for i in np.flatnonzero(counts > 1):
        tied = inverse == i
        ranks[tied] = ranks[tied].mean()
    return ranks


def model_losses(trials: Sequence[FrozenTrial], maximize: bool, margin: float = WIN_MARGIN) -> int:
    """The model's proposals (``proposed_by: model``) since the last one that beat every earlier trial by more
    than ``margin`` (a near-twin of the incumbent that wins by the run-to-run noise is not a win)."""
    best: float | None = None
    losses = 0
    for t in sorted(trials, key=lambda t: t.number):
        v = float(t.value)  # type: ignore[arg-type]
        if trialrecord.read(t).proposed_by == "model":
            won = best is None or (v > best * (1 + margin) if maximize else v * (1 + margin) < best)
            losses = 0 if won else losses + 1
        if best is None or (v > best if maximize else v < best):
            best = v
    return losses


@dataclass
class ModelArm:
    """The model's proposals for the ``autotune`` sampler, refitted to the campaign's completed trials."""

    space: BoundSpace
    metric: str
    maximize: bool
    top: int = 3
    start: Any = None                 # the constants to start from and regularise toward (None: the profile's)
    seed: int = 0
    names: tuple[str, ...] = ()
    constants: Any = None             # in force now
    rho: float = math.nan
    losses: int = 0
    fitted_on: int = 0                # completed trials of the last refit
    blind: bool = False               # the model cannot predict the metric here: it never proposes
    _pool: list[Config] = field(default_factory=list)
    _ranked: list[Config] = field(default_factory=list)
    _credit: float = 0.0

    def __post_init__(self) -> None:
        self.start = self.start if self.start is not None else constants_for(self.space.system, self.space.fs)
        self.constants = self.start
        self.names = self.names or FIT_NAMES.get(self.space.fs.kind, ())

    def _prepare(self) -> None:
        """The pool, ranked under the start constants (at the first use: a study opened to be read needs none)."""
        if self._pool:
            return
        top = model_ranked(self.space, self.metric, self.maximize, max(self.top, 10), self.start)
        if not top:  # the model cannot predict this metric (or this target): it stays out of the loop
            self.top, self.names, self._ranked, self.blind = 0, (), [], True
            self._pool = [self.space.default_config()]
            return
        if not informative(self.space, self.metric, top[0], self.start):
            self.top = 0  # the model does not tell the configurations apart here: no start, the share rule decides
        keys: set[tuple[Any, ...]] = set()
        for cfg in top + candidates(self.space, POOL, self.seed):
            k = _key(self.space.to_optuna(cfg))
            if k not in keys:
                keys.add(k)
                self._pool.append(cfg)
        self._ranked = list(self._pool)

    # -- the state, from the completed trials -------------------------------------------------------------
    def update(self, done: Sequence[FrozenTrial]) -> bool:
        """Refit and re-rank if the schedule says so (``done``: completed trials that ran); True if it did."""
        self._prepare()
        self.losses = model_losses(done, self.maximize)
        n = len(done)
        if n == 0 or n == self.fitted_on or (n > REFIT_ALWAYS and n < self.fitted_on * REFIT_GROWTH):
            return False
        runs = self._runs(done)
        if runs:
            self._refit(runs)
        self.fitted_on = n
        return True

    def _runs(self, done: Sequence[FrozenTrial]) -> list[Any]:
        ok = [t for t in done if t.value is not None and math.isfinite(t.value) and t.value > 0]
        if len(ok) > MAX_RUNS:
            best = sorted(ok, key=lambda t: float(t.value), reverse=self.maximize)[:MAX_RUNS // 2]  # type: ignore[arg-type]
            taken = {t.number for t in best}
            recent = [t for t in sorted(ok, key=lambda t: -t.number) if t.number not in taken][:MAX_RUNS - len(best)]
            ok = best + recent
        # the default trial ran the system's defaults (only the fixed settings applied), as `autotune model fit` reads it
        return [MeasuredRun(self.space.pattern, dict(self.space.fixed) if trialrecord.read(t).is_default
                            else self.space.from_optuna(t.params), float(t.value), self.metric)  # type: ignore[arg-type]
                for t in ok]

    def _refit(self, runs: list[Any]) -> None:
        if self.names:
            # a fit that fails keeps the constants in force
            with contextlib.suppress(AutotuneError, ValueError, np.linalg.LinAlgError):
                fit = fit_constants(runs, self.space.system, self.names, self.space.fs.name, start=self.start,
                                    bounds=(1 / SPAN, SPAN), prior_weight=PRIOR_WEIGHT, init=self.constants,
                                    max_nfev=MAX_NFEV)
                self.constants = fit.constants
        if len(runs) >= MIN_RHO_TRIALS and not self.blind:
            pred = [predicted(m, self.space.system, self.space.fs.name, self.constants) for m in runs]
            keep = [i for i, p in enumerate(pred) if math.isfinite(p)]
            self.rho = spearman([pred[i] for i in keep], [runs[i].seconds for i in keep])
        self._rerank()

    def _rerank(self) -> None:
        def score(cfg: Config) -> float:
            v = model_metric(self.space, cfg, self.metric, self.constants)
            return -math.inf if v is None or not math.isfinite(v) else (v if self.maximize else -v)

        scored = sorted(((score(c), i) for i, c in enumerate(self._pool)), key=lambda t: (-t[0], t[1]))
        ranked = [self._pool[i] for s, i in scored if math.isfinite(s)]
        if ranked and self.space.size() > MAX_CANDIDATES // 4:
            climbed, _ = coordinate_ascent(self.space, score, ranked[0], max_values=128)
            if climbed not in ranked:
                self._pool.append(climbed)
                ranked.insert(0, climbed)
        self._ranked = ranked

    # -- what the sampler asks -----------------------------------------------------------------------------
    def share(self, n_done: int) -> float:
        return share(self.rho, self.losses) if n_done >= MIN_RHO_TRIALS and not self.blind else 0.0

    def turn(self, n_model: int, n_done: int) -> bool:
        """Whether this proposal is the model's: during the start (``n_model`` < ``top``), or by the share."""
        self._prepare()
        if self.blind:
            return False
        if n_model < self.top:
            return True
        self._credit += self.share(n_done)
        if self._credit >= 1.0 - 1e-9:
            self._credit -= 1.0
            return True
        return False

    def propose(self, seen: set[tuple[Any, ...]]) -> Config | None:
        """The best-ranked configuration (refitted model) whose optuna parameters are not in ``seen``."""
        self._prepare()
        for cfg in self._ranked:
            if _key(self.space.to_optuna(cfg)) not in seen and self.space.feasible(cfg):
                return cfg
        return None

    def attrs(self, n_done: int) -> dict[str, Any]:
        """What a trial records: the constants in force, which moved (relative change), rho and the share."""
        values = {n: float(f"{getattr(self.constants, n):.4g}") for n in self.names}
        moved = {}
        for n in self.names:
            rel = getattr(self.constants, n) / getattr(self.start, n) - 1.0
            if abs(rel) > MOVED:
                moved[n] = round(rel, 3)
        return {"model_constants": values, "model_moved": moved, "model_fitted_on": self.fitted_on,
                "model_rho": None if math.isnan(self.rho) else round(self.rho, 3),
                "model_share": round(self.share(n_done), 3)}


def _key(params: Mapping[str, Any]) -> tuple[Any, ...]:
    return tuple(sorted(params.items()))

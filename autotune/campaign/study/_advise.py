"""``autotune model advise CAMPAIGN... --nodes N``: tuned at one scale, advised at another.

The model's constants are fitted to the campaigns' measured trials at their scale (as ``autotune model fit``);
the campaign's pattern is then moved to N nodes with the same ranks per node and the same bytes per rank
(weak scaling: what a user who tunes at 16-32 nodes and runs at 128-1,024 keeps), and the fitted model ranks the
campaign's space there. Printed: the predicted best settings at N nodes, their predicted value and gain over
the system's default and over the rule of thumb (stripe over as many OSTs as nodes, up to the healthy OSTs:
ALCF Theta I/O talk "don't exceed node count with stripe count", "don't go to full 56"), and how far the fit
can be trusted: its error on trials held out of the fit at the fitted scale (k-fold). That error says nothing
of the extrapolation to N nodes, which no measurement here covers.

A fit is kept only when it predicts the held-out trials better than the profile alone predicts them (the profile's
constants saw none of the trials, so its error on them is out of sample too): the median held-out error of the
fit against the median error of the profile. A fit to runs the model cannot explain (ARCHER fs3 at one node: its
constants move to explain runs no term covers) would otherwise carry that into every other scale; cross-validation
choosing between a fitted and an unfitted model is the standard remedy (Hastie, Tibshirani and Friedman, The
Elements of Statistical Learning, 7.10). The advice says which one it used.

Settings the model predicts within its own held-out error of the best (at most ``MAX_BAND``) are not told
apart by it: of those, the advice is the one closest to the system's default (fewest parameters changed, then the
smallest change), so a flat stretch of the curve is not resolved by noise toward the widest setting.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autotune.campaign.file import load_campaign
from autotune.campaign.study._modelfit import SiteFit, fit_campaigns
from autotune.errors import ConfigError
from autotune.model import PRIOR_WEIGHT, SPAN, Constants, MeasuredRun, constants_for, fit_constants, predicted
from autotune.optimize import model_metric, model_ranked
from autotune.pattern import IOPattern
from autotune.space import BoundSpace
from autotune.tiers import LUSTRE

FOLDS = 5
FOLD_EVALS = 60   # least-squares evaluations per held-out fit: the fold's error, not a polished fit
MAX_BAND = 0.10   # settings within min(held-out median error, this) of the predicted best count as ties
CANDIDATES = 64   # the model's best settings considered for the tie-break


@dataclass(frozen=True)
class Advice:
    """The fitted model's advice for ``nodes`` nodes and the held-out error of the fit at the measured scale."""

    site: SiteFit
    nodes: int
    pattern: IOPattern
    metric: str
    maximize: bool
    best: dict[str, Any]
    values: dict[str, float | None]        # predicted metric: best, default, rule of thumb
    rule: dict[str, Any]
    heldout: list[float]                   # |log(predicted / measured)| of each held-out trial
    top: dict[str, Any] | None = None      # the model's single best setting, when the advice is a tie-break
    band: float = 0.0                      # relative spread treated as a tie
    profile_errors: tuple[float, ...] = ()  # |log(predicted / measured)| of each trial with the profile's constants
    fitted: bool = True                    # the fit is used (False: it predicted held-out trials worse than the profile)

    @property
    def constants(self) -> Constants:
        """The constants the advice ranks with: the fitted ones, or the profile's when the fit did not predict better."""
        return self.site.fit.constants if self.fitted else constants_for(self.site.system, self.site.fs)

    @property
    def heldout_factor(self) -> float | None:
        """Median held-out error as a factor (1.2: predictions within x1.2 of the measurement, typically)."""
        if not self.heldout:
            return None
        errs = sorted(self.heldout)
        return math.exp(errs[len(errs) // 2])

    def gain(self, over: str) -> float | None:
        best, base = self.values.get("best"), self.values.get(over)
        if best is None or base is None or base <= 0 or best <= 0:
            return None
        return best / base if self.maximize else base / best

    @property
    def text(self) -> str:
        p, fitted = self.pattern, self.site.runs[0].pattern
        lines = [f"autotune model advise: fitted on {len(self.site.runs)} trial(s) at {fitted.nodes} node(s) x "
                 f"{fitted.ranks_per_node} rank(s); advice for {p.nodes} node(s) x {p.ranks_per_node} rank(s) "
                 f"({p.ranks} ranks, {p.bytes_per_rank / 2**20:.4g} MiB per rank, weak scaling)"]
        for label, key, cfg in (("predicted best", "best", self.best), ("system default", "default", None),
                                ("rule of thumb", "rule", self.rule)):
            v = self.values.get(key)
            shown = "n/a" if v is None else f"{v:.4g} {self.metric}"
            gain = "" if key == "best" or self.gain(key) is None else f"  (best is x{self.gain(key):.2f})"
            lines.append(f"  {label:<15} {shown}{gain}")
            if cfg:
                lines.extend(f"      {k} = {v2}" for k, v2 in sorted(cfg.items()))
            if key == "best" and self.top is not None and self.top != self.best:
                lines.append(f"      (closest to the default of the settings predicted within {self.band:.0%} of the"
                             f" best, the model's held-out error; its top: "
                             + ", ".join(f"{k} = {v2}" for k, v2 in sorted(self.top.items())
                                         if self.best.get(k) != v2) + ")")
        f = self.heldout_factor
        lines.append("  trust: " + (f"held-out error at {fitted.nodes} node(s): median x{f:.2f}, worst "
                                    f"x{math.exp(max(self.heldout)):.2f} over {len(self.heldout)} trial(s) "
                                    f"({min(FOLDS, len(self.heldout))}-fold)" if f is not None
                                    else "too few trials to hold any out (need 4)")
                     + f"; the move to {p.nodes} node(s) is an extrapolation no trial checks")
        if not self.fitted:
            lines.append(f"  the fit predicts the held-out trials worse (median x{f:.2f}) than the profile alone predicts"
                         f" them (median x{_median_factor(self.profile_errors):.2f}): advised with the profile's constants")
        return "\n".join(lines)


def at_nodes(pattern: IOPattern, nodes: int) -> IOPattern:
    """``pattern`` on ``nodes`` nodes: the same ranks per node and bytes per rank."""
    if nodes < 1:
        raise ConfigError(f"--nodes: {nodes} must be a positive node count")
    return pattern.with_(nodes=nodes, ranks=nodes * pattern.ranks_per_node)


def rule_of_thumb(space: BoundSpace) -> dict[str, Any]:
    """The default configuration with the stripe count of the published rule (Lustre only)."""
    cfg = dict(space.default_config())
    if space.fs.tier is LUSTRE and "lustre.stripe_count" in {p.name for p in space.active}:
        healthy = max(1, (space.fs.osts or 1) - constants_for(space.system, space.fs).slow_osts)
        cfg["lustre.stripe_count"] = min(healthy, space.pattern.nodes)
        if not space.feasible(cfg):
            cfg = dict(space.default_config())
    return cfg


def heldout_errors(site: SiteFit, folds: int = FOLDS) -> list[float]:
    """|log(predicted / measured)| of every trial, each predicted by a fit without its fold."""
    runs = site.runs
    if len(runs) < 4:
        return []
    k = min(folds, len(runs))
    out: list[float] = []
    for i in range(k):
        train = [r for j, r in enumerate(runs) if j % k != i]
        test: list[MeasuredRun] = [r for j, r in enumerate(runs) if j % k == i]
        fit = fit_constants(train, site.system, site.names, site.fs.name, bounds=(1 / SPAN, SPAN),
                            prior_weight=PRIOR_WEIGHT, max_nfev=FOLD_EVALS)
        for r in test:
            v = predicted(r, site.system, site.fs.name, fit.constants)
            if v > 0 and math.isfinite(v):
                out.append(abs(math.log(v / r.seconds)))
    return out


def advise(paths: Sequence[str | Path], nodes: int, storage: str | None = None,
           constants: Sequence[str] | None = None) -> Advice:
    """Fit the campaigns' trials, then rank their space at ``nodes`` nodes with the fitted model."""
    camp = load_campaign(paths[0])
    pattern = at_nodes(camp.app.pattern, nodes)
    site = fit_campaigns(paths, storage, constants)
    space = camp.space.bind(camp.system, camp.fs, pattern)
    metric, maximize = camp.objective.metric, camp.objective.maximize
    held, profile, fitted = judge_fit(site)
    c = site.fit.constants if fitted else constants_for(site.system, site.fs)
    ranked = model_ranked(space, metric, maximize, top=CANDIDATES, constants=c)
    if not ranked:
        raise ConfigError(f"model advise: the model cannot predict {metric!r} for {camp.name} at {nodes} node(s)")
    errors = held if fitted else list(profile)
    band = min(MAX_BAND, _median_factor(errors) - 1.0) if errors else 0.0
    default = space.default_config()
    best = tie_break(ranked, [model_metric(space, cfg, metric, c) for cfg in ranked], default, maximize, band)
    rule = rule_of_thumb(space)
    values = {"best": model_metric(space, best, metric, c),
              "default": model_metric(space, default, metric, c),
              "rule": model_metric(space, rule, metric, c)}
    return Advice(site, nodes, pattern, metric, maximize, best, values, rule, held, ranked[0], band, profile, fitted)


def judge_fit(site: SiteFit) -> tuple[list[float], tuple[float, ...], bool]:
    """(held-out errors of the fit, errors of the profile alone, whether the fit is used): it is unless the profile
    predicts the trials at least as well (median against median; see the module docstring)."""
    held, profile = heldout_errors(site), tuple(profile_errors(site))
    return held, profile, not (held and profile and _median_factor(profile) <= _median_factor(held))


def profile_errors(site: SiteFit) -> list[float]:
    """|log(predicted / measured)| of every trial with the profile's own constants (no fit: out of sample)."""
    base = constants_for(site.system, site.fs)
    out: list[float] = []
    for r in site.runs:
        v = predicted(r, site.system, site.fs.name, base)
        if v > 0 and math.isfinite(v):
            out.append(abs(math.log(v / r.seconds)))
    return out


def _median_factor(errors: Sequence[float]) -> float:
    """The median of |log| errors as a factor (the upper median, as ``Advice.heldout_factor``)."""
    return math.exp(sorted(errors)[len(errors) // 2]) if errors else math.nan


def distance(cfg: Mapping[str, Any], default: Mapping[str, Any]) -> tuple[int, float]:
    """How far ``cfg`` is from ``default``: parameters changed, then the summed |log ratio| of numeric ones."""
    changed, spread = 0, 0.0
    for k, v in cfg.items():
        d = default.get(k)
        if v == d:
            continue
        changed += 1
        if isinstance(v, (int, float)) and isinstance(d, (int, float)) and v > 0 and d > 0:
            spread += abs(math.log(v / d))
        else:
            spread += 1.0
    return changed, spread


def tie_break(ranked: Sequence[Mapping[str, Any]], values: Sequence[float | None], default: Mapping[str, Any],
              maximize: bool, band: float) -> dict[str, Any]:
    """Of the ``ranked`` settings predicted within ``band`` (relative) of the first, the closest to ``default``."""
    top = values[0]
    if top is None or band <= 0:
        return dict(ranked[0])
    near: list[Mapping[str, Any]] = [cfg for cfg, v in zip(ranked, values, strict=True) if v is not None
                                     and (v >= top * (1 - band) if maximize else v <= top * (1 + band))]
    chosen: Mapping[str, Any] = min(near, key=lambda cfg: distance(cfg, default))
    return dict(chosen)

"""Recommend only what was proven: an interleaved re-measurement of the top configurations and the default,
the winner's margin with a bootstrap interval, and an ablation that keeps only settings that matter.

Best-of-N over many configurations is biased upward (the luckiest run of the luckiest configuration wins).
At the end of a campaign the top ``TOP`` configurations and the default run again in ``rounds`` interleaved
rounds (A B C D, B C D A, ...: drift and other users' load hit all alike); the winner is the best median,
and its margin over the default is the median of the round-by-round advantages (paired: drift within a
round cancels) with a bootstrap interval over rounds. Its settings that differ from the default are then
ablated: each is reset to its default and measured interleaved with the winner; a setting is kept only if
dropping it costs more than the jitter (the 95% interval of the cost is above zero; if no single setting
passes, the one whose loss costs most is kept, since together they won). Settings that cannot act
(``autotune.hints.inert``) are dropped without measuring. If the winner's margin over the default is
within the jitter, the recommendation is the default: set nothing.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import optuna
from optuna.trial import TrialState

from autotune.campaign._resume import in_space
from autotune.campaign._runtime import Runtime
from autotune.campaign._trial import run_trial
from autotune.hints import inert, measured_phases
from autotune.measure import paired_margin
from autotune.space import Config

TOP = 3
CONFIRM_BASE = 2_000_000  # run directories of the confirmation (trial numbers no study reaches)
Measure = Callable[[Config, bool, int], float | None]  # (config, is_default, run id) -> value


@dataclass
class Confirmation:
    """What the confirmation measured and what it recommends (kept as the study attribute ``confirmation``)."""

    rounds: int
    candidates: list[dict[str, Any]]  # {label, trial, config, values}
    winner: str
    margin: float
    low: float
    high: float
    recommended: dict[str, Any]  # the settings to export (only those that differ from the default and matter)
    dropped: dict[str, str] = field(default_factory=dict)  # setting -> why it is not exported
    ablation: dict[str, dict[str, Any]] = field(default_factory=dict)  # setting -> {values, cost, low, high}
    best_of_n_gain: float | None = None  # what the search claimed over the default (its aggregate of N)

    @property
    def proven(self) -> bool:
        return self.winner != "default" and self.low > 0

    def lines(self, metric: str) -> list[str]:
        vals = {c["label"]: c["values"] for c in self.candidates}
        out = [f"confirmation: {self.rounds} interleaved rounds of {', '.join(vals)} (median {metric}):"]
        for label, v in vals.items():
            ok = [x for x in v if x is not None]
            out.append(f"  {label}: median {statistics.median(ok):.4g}" if ok else f"  {label}: every run failed")
        claim = f"; the search claimed {self.best_of_n_gain:+.1%}" if self.best_of_n_gain is not None else ""
        out.append(f"  winner {self.winner}: {self.margin:+.1%} over the default "
                   f"(95% interval {self.low:+.1%} to {self.high:+.1%}){claim}")
        if not self.proven:
            out.append("  no configuration beat the default beyond the jitter: keep the system's defaults")
        for name, why in sorted(self.dropped.items()):
            out.append(f"  not exported: {name} ({why})")
        return out


def _values(xs: Sequence[float | None]) -> list[float]:
    return [x for x in xs if x is not None]


def interleaved(configs: Sequence[tuple[Config, bool]], rounds: int, measure: Measure, base: int) -> list[list[float | None]]:
    """``rounds`` rounds over ``configs``, each round rotated by one (A B C, B C A, ...); values per config."""
    n = len(configs)
    out: list[list[float | None]] = [[] for _ in configs]
    for r in range(rounds):
        for j in range(n):
            i = (j + r) % n
            cfg, is_default = configs[i]
            out[i].append(measure(cfg, is_default, base + r * 64 + i))
    return out


def confirm(default: Config, top: Sequence[tuple[int, Config]], rounds: int, measure: Measure, maximize: bool,
            pattern_phases: Sequence[str] = ("write",), base: int = CONFIRM_BASE) -> Confirmation:
    """Re-measure ``top`` ((trial, config) best first) and ``default`` interleaved, then ablate the winner."""
    entries = [("default", -1, default, True)] + [(f"trial {n}", n, cfg, False) for n, cfg in top if cfg != default]
    vals = interleaved([(e[2], e[3]) for e in entries], rounds, measure, base)
    cands: list[dict[str, Any]] = [{"label": e[0], "trial": e[1], "config": dict(e[2]), "values": v}
                                   for e, v in zip(entries, vals, strict=True)]
    scored = [(statistics.median(_values(c["values"])), i) for i, c in enumerate(cands) if _values(c["values"])]
    if not scored or not _values(cands[0]["values"]):
        return Confirmation(rounds, cands, "default", 0.0, 0.0, 0.0, {}, {"*": "the default could not be measured"})
    best_i = (max if maximize else min)(scored)[1]
    winner = cands[best_i]
    margin, lo, hi = paired_margin(winner["values"], cands[0]["values"], maximize)  # round by round: drift cancels
    conf = Confirmation(rounds, cands, winner["label"], margin, lo, hi, {})
    if best_i == 0 or lo <= 0:
        return conf
    cfg: Config = winner["config"]
    changed = {k: v for k, v in cfg.items() if default.get(k) != v}
    for name, why in inert(changed, pattern_phases).items():
        conf.dropped[name] = why
        changed.pop(name)
    if len(changed) > 1:
        ablated = [({**cfg, **{k: default.get(k)}}, False) for k in changed]
        res = interleaved([(cfg, False), *ablated], rounds, measure, base + 32)
        for k, v in zip(changed, res[1:], strict=True):
            cost, clo, chi = paired_margin(res[0], v, maximize)
            conf.ablation[k] = {"values": v, "cost": cost, "low": clo, "high": chi}
            if clo <= 0:
                conf.dropped[k] = f"dropping it cost {cost:+.1%} (95% interval {clo:+.1%} to {chi:+.1%}): within the jitter"
        if all(k in conf.dropped for k in changed):  # substitutes or noise: keep the one whose loss costs most
            keep = max(changed, key=lambda k: conf.ablation[k]["cost"])
            conf.dropped.pop(keep)
        changed = {k: v for k, v in changed.items() if k not in conf.dropped}
    conf.recommended = changed
    return conf


def confirm_campaign(rt: Runtime, study: optuna.Study, rounds: int) -> Confirmation | None:
    """Run the confirmation of a finished campaign and store it on the study (``confirmation``)."""
    c = rt.campaign
    done = [t for t in in_space(study, study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)))
            if t.user_attrs.get("ran") and t.value is not None and not t.user_attrs.get("is_default")]
    if not done:
        return None
    done.sort(key=lambda t: float(t.value or 0.0), reverse=c.objective.maximize)
    top: list[tuple[int, Config]] = []
    for t in done:
        cfg = rt.config_of(t)
        if all(cfg != other for _, other in top):
            top.append((t.number, cfg))
        if len(top) == TOP:
            break

    def measure(config: Config, is_default: bool, number: int) -> float | None:
        o = run_trial(rt, number, config, is_default, 1)
        return o.repetitions[0] if o.repetitions else None

    conf = confirm(rt.space.default_config(), top, rounds, measure, c.objective.maximize,
                   measured_phases(c.objective.metric, c.app.pattern.phases))
    default = next((t for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
                    if t.user_attrs.get("is_default") and t.user_attrs.get("ran")), None)
    if default is not None and default.value:
        best = done[0].value or 0.0
        conf.best_of_n_gain = best / default.value - 1 if c.objective.maximize else default.value / best - 1
    study.set_user_attr("confirmation", asdict(conf))
    return conf


def recommended_config(rt: Runtime, study: optuna.Study, best: optuna.trial.FrozenTrial) -> tuple[Config, bool]:
    """The configuration to export and whether it is the system's defaults: the confirmed one, else the best
    trial's settings that differ from the default and can act."""
    conf: Mapping[str, Any] | None = study.user_attrs.get("confirmation")
    if conf is not None:
        kept = dict(conf.get("recommended") or {})
        return {**rt.space.fixed, **kept}, not kept
    if best.user_attrs.get("is_default"):
        return dict(rt.space.fixed), True
    default = rt.space.default_config()
    changed = {k: v for k, v in rt.config_of(best).items() if default.get(k) != v}
    for name in inert(changed, measured_phases(rt.campaign.objective.metric, rt.campaign.app.pattern.phases)):
        changed.pop(name)
    return {**rt.space.fixed, **changed}, not changed

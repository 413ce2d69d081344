"""Recommend only what was shown: a sequential, interleaved re-measurement of the top configurations against the
default that pools every run of the same physical configurations, then an ablation that keeps only settings
that matter.

The aggregate of N over many configurations is biased upward (the luckiest configuration wins). At the end of a
campaign the top ``TOP`` physically distinct configurations and the default run again in interleaved rounds
(A B C D, B C D A, ...: drift and other users' load hit all alike). Each candidate's margin over the default
pools two kinds of evidence (``autotune.measure.paired`` / ``unpaired`` / ``combine``, on log values):

* the rounds, paired round by round (drift common to a round cancels);
* the campaign's own runs of the same physical configurations (twins: configurations that differ only in
  settings that cannot act, ``autotune.hints.inert``), compared unpaired. The trial that put a candidate in
  the top is left out of its history: it was chosen for being lucky, and counting it would bias the margin.

After looks at rounds 3, 4, 6, 9, ... (``autotune.measure.looks``) the confirmation stops as soon as a look is
decisive: a candidate's one-sided 95% lower bound above zero (recommend the best such candidate), or every
candidate's upper end below ``matters`` (keep the defaults: no gain that matters), else at the budget of rounds or
seconds. The error is held at 5% over all looks and candidates by the union bound: each look before the last
spends p < 0.001 (Haybittle 1971; Peto et al. 1976), the last the rest, and each look's error is shared between
the candidates by fixed weights in the search's order (``WEIGHTS``: most to the search's own best; weighted
Bonferroni, e.g. Westfall & Krishen 2001, J Stat Plan Inference 99). The decision is one-sided (a recommendation
needs only "better than the default"); the reported interval is the two-sided 95% one, spent the same way.

The winner's changed settings that cannot act are dropped without measuring; the others are ablated: each reset
to its default and measured interleaved with the winner; a setting is kept only if dropping it costs more than
the jitter (the 95% interval of the cost is above zero; if no single setting passes, the one whose loss costs
most is kept, since together they won).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import optuna
from optuna.trial import TrialState

from autotune import trialrecord
from autotune.campaign._confirmation import MATTERS, Confirmation
from autotune.campaign._resume import in_space
from autotune.campaign._runtime import Runtime
from autotune.campaign._trial import run_trial
from autotune.hints import inert, measured_phases
from autotune.measure import INTERIM, Estimate, combine, looks, margin, paired, spend, unpaired
from autotune.space import Config

TOP = 3
# the error's shares of the candidates in the search's order (weighted Bonferroni): most to the search's own best,
# which is the likeliest to be right, the rest to the runners-up in case it was only lucky
WEIGHTS = (0.8, 0.1, 0.1)
CONFIRM_BASE = 2_000_000  # run directories of the confirmation (trial numbers no study reaches)
ABLATION_ROUNDS = (3, 12)  # the ablation runs as many rounds as the confirmation did, within these bounds
Measure = Callable[[Config, bool, int], float | None]  # (config, is_default, run id) -> value


def physical(config: Config, default: Config, phases: Sequence[str]) -> Config:
    """``config`` with its settings that cannot act at their defaults: twins have the same physical config."""
    dead = inert(config, phases)
    return {k: default.get(k) if k in dead else v for k, v in config.items()}


def interleaved(configs: Sequence[tuple[Config, bool]], rounds: int, measure: Measure, base: int,
                first: int = 0, active: Sequence[bool] | None = None) -> list[list[float | None]]:
    """Rounds ``first`` .. ``first + rounds - 1`` over ``configs``, each round rotated by one (A B C, B C A, ...);
    values per config (None where a config is not ``active``)."""
    n = len(configs)
    out: list[list[float | None]] = [[] for _ in configs]
    for r in range(first, first + rounds):
        for j in range(n):
            i = (j + r) % n
            cfg, is_default = configs[i]
            out[i].append(measure(cfg, is_default, base + r * 64 + i) if active is None or active[i] else None)
    return out


@dataclass
class _Look:
    est: Estimate | None
    low: float  # the reported two-sided interval, on the log scale
    high: float
    bound: float  # the one-sided lower bound that decides a recommendation, on the log scale


def _look(values: list[list[float | None]], history: list[list[list[float]]], i: int, maximize: bool, alpha: float,
          one_sided: float) -> _Look:
    """Candidate ``i`` over the default: the two-sided ``1 - alpha`` interval and the ``1 - one_sided`` lower bound."""
    est = combine([paired(values[i], values[0], maximize), unpaired(history[i], history[0], maximize)])
    if est is None or alpha <= 0:
        return _Look(est, -float("inf"), float("inf"), -float("inf"))
    lo, hi = est.interval(alpha)
    return _Look(est, lo, hi, est.interval(2 * one_sided)[0])


def weights(m: int) -> list[float]:
    """The shares of the error of ``m`` candidates in the search's order (``WEIGHTS``, renormalised)."""
    w = [*WEIGHTS[:m], *[WEIGHTS[-1]] * max(m - len(WEIGHTS), 0)]
    return [x / sum(w) for x in w]


def _needed(values: list[float | None], base: list[float | None], hist: Estimate | None, maximize: bool,
            matters: float) -> int | None:
    """About how many rounds would make the 95% interval's half-width ``matters`` (normal approximation)."""
    p = paired(values, base, maximize)
    if p is None or matters <= 0:
        return None
    per_round = p.var * (p.df + 1)
    h = abs(margin(matters, True)) if maximize else matters
    target = (1.96 / max(h, 1e-9)) ** 2 - (1 / hist.var if hist is not None else 0.0)
    return max(math.ceil(per_round * target), int(p.df) + 2)


def confirm(default: Config, top: Sequence[tuple[int, Config]], rounds: int, measure: Measure, maximize: bool,
            pattern_phases: Sequence[str] = ("write",), base: int = CONFIRM_BASE,
            history: Mapping[int, Sequence[Sequence[float]]] | None = None, matters: float = MATTERS,
            seconds: float | None = None, clock: Callable[[], float] = time.monotonic) -> Confirmation:
    """Re-measure ``top`` ((trial, config) best first) and ``default`` interleaved, sequentially, at most ``rounds``
    rounds (or ``seconds``); ``history``: earlier runs per trial number (-1: the default's twins), one block of
    runs per trial."""
    hist = dict(history or {})
    seen = [physical(default, default, pattern_phases)]
    entries = [("default", -1, default, True)]
    for n, cfg in top:
        if physical(cfg, default, pattern_phases) not in seen:  # a twin of the default or of a better candidate
            seen.append(physical(cfg, default, pattern_phases))
            entries.append((f"trial {n}", n, cfg, False))
    configs = [(e[2], e[3]) for e in entries]
    hs = [[list(blk) for blk in hist.get(e[1], ())] for e in entries]
    vals: list[list[float | None]] = [[] for _ in entries]
    active = [True] * len(entries)
    w = [0.0, *weights(len(entries) - 1)]
    start, done, used, used1 = clock(), 0, 0.0, 0.0
    plan = looks(rounds)
    look = _Look(None, -float("inf"), float("inf"), -float("inf"))
    decision, best_i = "undecided", 0
    while done < rounds:
        step = plan[0] - done if plan else 1
        for i, v in enumerate(interleaved(configs, step, measure, base, done, active)):
            vals[i] += v
        done += step
        out_of_time = seconds is not None and clock() - start >= seconds
        if plan and done == plan[0]:
            plan.pop(0)
        elif not out_of_time:
            continue
        final = done >= rounds or out_of_time
        a, a1 = spend(final, used), spend(final, used1, interim=INTERIM / 2)  # two-sided: reported; one-sided: decision
        used, used1 = used + a, used1 + a1
        res = {i: _look(vals, hs, i, maximize, a * w[i], a1 * w[i]) for i in range(1, len(entries))}
        shown = [i for i, r in res.items() if r.bound > 0]
        for i, r in res.items():
            if r.high < _log(matters, maximize):
                active[i] = False  # shown not to matter: no more runs of it
        if res:
            best_i = max(shown or res, key=lambda i: _log_of(res[i]))
            look = res[best_i]
        if shown:
            decision = "recommend"
        elif res and not any(active[1:]):
            decision = "worse" if all(r.high < 0 for r in res.values()) else "below"
        if decision != "undecided" or final:
            break
    return _finish(entries, vals, hs, look, best_i, decision, done, rounds, matters, maximize, measure,
                   pattern_phases, base, default)


def _log_of(look: _Look) -> float:
    return look.est.log if look.est is not None else -math.inf


def _log(gain: float, maximize: bool) -> float:
    """The log-ratio of a margin (the inverse of ``autotune.measure.margin``)."""
    return math.log1p(gain) if maximize else -math.log1p(-gain)


def _finish(entries: list[tuple[str, int, Config, bool]], vals: list[list[float | None]], hs: list[list[list[float]]],
            look: _Look, best_i: int, decision: str, done: int, rounds: int, matters: float, maximize: bool,
            measure: Measure, phases: Sequence[str], base: int, default: Config) -> Confirmation:
    cands: list[dict[str, Any]] = [{"label": e[0], "trial": e[1], "config": dict(e[2]), "values": v, "history": h}
                                   for e, v, h in zip(entries, vals, hs, strict=True)]
    if not [x for x in vals[0] if x is not None] or look.est is None:
        why = "the default could not be measured" if not [x for x in vals[0] if x is not None] \
            else "no candidate could be compared with the default"
        return Confirmation(done, cands, "default", 0.0, 0.0, 0.0, {}, {"*": why}, decision="undecided",
                            max_rounds=rounds, matters=matters)
    est = look.est
    winner = cands[best_i] if best_i and (decision == "recommend" or est.log > 0) else cands[0]
    lo, hi = margin(look.low, maximize) if look.low > -float("inf") else -1.0, \
        margin(look.high, maximize) if look.high < float("inf") else float("inf")
    conf = Confirmation(done, cands, winner["label"], margin(est.log, maximize), lo, hi, {}, decision=decision,
                        max_rounds=rounds, matters=matters,
                        bound=margin(look.bound, maximize) if look.bound > -float("inf") else None)
    if decision == "undecided" and best_i:
        conf.needed_rounds = _needed(vals[best_i], vals[0], unpaired(hs[best_i], hs[0], maximize), maximize, matters)
    if decision == "recommend":
        conf.recommended = _ablate(conf, winner["config"], default, measure, maximize, phases, base,
                                   min(max(done, ABLATION_ROUNDS[0]), ABLATION_ROUNDS[1]))
    return conf


def _ablate(conf: Confirmation, cfg: Config, default: Config, measure: Measure, maximize: bool,
            phases: Sequence[str], base: int, rounds: int) -> dict[str, Any]:
    """The winner's changed settings that can act and matter (see the module's docstring)."""
    changed = {k: v for k, v in cfg.items() if default.get(k) != v}
    for name, why in inert(changed, phases).items():
        conf.dropped[name] = why
        changed.pop(name)
    if len(changed) > 1:
        ablated = [({**cfg, **{k: default.get(k)}}, False) for k in changed]
        res = interleaved([(cfg, False), *ablated], rounds, measure, base + 32)
        for k, v in zip(changed, res[1:], strict=True):
            est = paired(res[0], v, maximize)
            log, (clo, chi) = (est.log, est.interval()) if est else (0.0, (-float("inf"), float("inf")))
            cost, lo, hi = margin(log, maximize), margin(clo, maximize), margin(chi, maximize)
            conf.ablation[k] = {"values": v, "cost": cost, "low": lo, "high": hi}
            if clo <= 0:
                conf.dropped[k] = f"dropping it cost {cost:+.1%} (95% interval {lo:+.1%} to {hi:+.1%}): within the jitter"
        if all(k in conf.dropped for k in changed):  # substitutes or noise: keep the one whose loss costs most
            keep = max(changed, key=lambda k: conf.ablation[k]["cost"])
            conf.dropped.pop(keep)
        changed = {k: v for k, v in changed.items() if k not in conf.dropped}
    return changed
def pooled_history(runs: Sequence[tuple[int, Config, Sequence[float | None]]], default: Config,
                   top: Sequence[tuple[int, Config]], phases: Sequence[str]) -> dict[int, list[list[float]]]:
    """The campaign's earlier runs per candidate (trial number; -1: the default), one block per trial: every trial
    of the physically same configuration, except the candidate's own trial (chosen because it was lucky)."""
    keyed = [(n, physical(cfg, default, phases), [float(v) for v in vs if v is not None]) for n, cfg, vs in runs]
    out: dict[int, list[list[float]]] = {}
    for n, cfg in [(-1, default), *top]:
        key = physical(cfg, default, phases)
        out[n] = [vs for m, k, vs in keyed if k == key and (m != n or n == -1) and vs]
    return out


def top_physical(ranked: Sequence[tuple[int, Config]], default: Config, phases: Sequence[str],
                 k: int = TOP) -> list[tuple[int, Config]]:
    """The best trial of each of the ``k`` best physically distinct configurations (twins of the default left out)."""
    seen = [physical(default, default, phases)]
    top: list[tuple[int, Config]] = []
    for n, cfg in ranked:
        key = physical(cfg, default, phases)
        if key not in seen:
            seen.append(key)
            top.append((n, cfg))
        if len(top) == k:
            break
    return top


def confirm_campaign(rt: Runtime, study: optuna.Study, rounds: int) -> Confirmation | None:
    """Run the confirmation of a finished campaign and store it on the study (``confirmation``)."""
    c = rt.campaign
    ran = [t for t in in_space(study, study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)))
           if trialrecord.read(t).ran and t.value is not None]
    done = [t for t in ran if not trialrecord.read(t).is_default]
    if not done:
        return None
    done.sort(key=lambda t: float(t.value or 0.0), reverse=c.objective.maximize)
    phases = measured_phases(c.objective.metric, c.app.pattern.phases)
    default_cfg = rt.space.default_config()
    top = top_physical([(t.number, rt.config_of(t)) for t in done], default_cfg, phases)
    if not top:
        return None
    runs = [(-1 if r.is_default else t.number, default_cfg if r.is_default else rt.config_of(t), list(r.repetitions))
            for t in ran for r in (trialrecord.read(t),)]

    def measure(config: Config, is_default: bool, number: int) -> float | None:
        o = run_trial(rt, number, config, is_default, 1)
        return o.repetitions[0] if o.repetitions else None

    conf = confirm(default_cfg, top, rounds, measure, c.objective.maximize, phases,
                   history=pooled_history(runs, default_cfg, top, phases), matters=c.objective.confirm_matters,
                   seconds=c.objective.confirm_seconds)
    conf.aggregate = c.objective.aggregate
    default = next((t for t in ran if trialrecord.read(t).is_default), None)
    if default is not None and default.value:
        best = done[0].value or 0.0
        conf.best_of_n_gain = best / default.value - 1 if c.objective.maximize else default.value / best - 1
    trialrecord.write_study(study, confirmation=asdict(conf))
    return conf


def recommended_config(rt: Runtime, study: optuna.Study, best: optuna.trial.FrozenTrial) -> tuple[Config, bool]:
    """The configuration to export and whether it is the system's defaults: the confirmed one, else the best
    trial's settings that differ from the default and can act."""
    conf: Mapping[str, Any] | None = trialrecord.read_study(study).confirmation
    if conf is not None:
        kept = dict(conf.get("recommended") or {})
        return {**rt.space.fixed, **kept}, not kept
    if trialrecord.read(best).is_default:
        return dict(rt.space.fixed), True
    default = rt.space.default_config()
    changed = {k: v for k, v in rt.config_of(best).items() if default.get(k) != v}
    for name in inert(changed, measured_phases(rt.campaign.objective.metric, rt.campaign.app.pattern.phases)):
        changed.pop(name)
    return {**rt.space.fixed, **changed}, not changed

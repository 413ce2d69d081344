"""Recommend only what was shown: a sequential, interleaved re-measurement of the top configurations against the
default that pools every run of the same physical configurations, then an ablation that keeps only settings
that matter.

The aggregate of N over many configurations is biased upward (the luckiest configuration wins). At the end of a
campaign the top ``TOP`` physically distinct configurations and the default run again in interleaved rounds
(A B C D, B C D A, ...: drift and other users' load hit all alike). Each candidate's margin over the default
pools two kinds of evidence as paired log-ratios (``autotune.measure.differences`` / ``block_differences``):

* the rounds, paired round by round (drift common to a round cancels);
* the campaign's own runs of the same physical configurations (twins: configurations that differ only in
  settings that cannot act, ``autotune.hints.inert``), in balanced pairs of trials (the i-th trial of the
  candidate with the i-th of the default, each summarised by the campaign's aggregate of N over the same number
  of runs). The trial that put a candidate in the top is left out of its history: it was chosen for being lucky.

Every such pair's log-ratio is symmetric about the true one, also under one-sided noise (interference only slows
runs down), because both sides carry the same noise law; an unbalanced comparison (many trials of the candidate
against one of the default) is not, and made false recommendations under one-sided noise. The margin is the
20%-trimmed mean of the pairs with its Tukey-McLaughlin t interval (``autotune.measure.trimmed``): differences of
one-sided noise are heavy-tailed, where trimming gains power over the mean.

After looks at rounds 3, 4, 6, 9, ... (``autotune.measure.looks``) the confirmation stops as soon as a look is
decisive: a candidate's one-sided 95% lower bound above zero (recommend the best such candidate), or every
candidate's upper end below ``matters`` (keep the defaults: no gain that matters), else at the budget of rounds or
seconds. The error is held at 5% over all looks and candidates by the union bound: each look before the last
spends p < 0.001 (Haybittle 1971; Peto et al. 1976), the last the rest, and each look's error is shared between
the candidates by fixed weights in the search's order (``WEIGHTS``: most to the search's own best; weighted
Bonferroni, e.g. Westfall & Krishen 2001, J Stat Plan Inference 99). The decision is one-sided (a recommendation
needs only "better than the default"); the reported interval is the two-sided 95% one, spent the same way.

The winner's settings are then ablated (``_ablation``), and the best rule of thumb the campaign ran is measured in
the same rounds as a comparator (``_rule``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

from autotune.campaign.confirm._ablation import Measure, ablate, interleaved
from autotune.campaign.confirm._record import MATTERS, Confirmation
from autotune.campaign.confirm._rule import RuleComparison, against_rule, log_margin, rule_open
from autotune.hints import inert
from autotune.measure import (
    ALPHA,
    INTERIM,
    Estimate,
    block_differences,
    differences,
    looks,
    margin,
    spend,
    trimmed,
)
from autotune.space import Config

TOP = 3
# the error's shares of the candidates in the search's order (weighted Bonferroni): most to the search's own best,
# which is the likeliest to be right, the rest to the runners-up in case it was only lucky
WEIGHTS = (0.8, 0.1, 0.1)
CONFIRM_BASE = 2_000_000  # run directories of the confirmation (trial numbers no study reaches)
ABLATION_ROUNDS = (3, 12)  # the ablation runs as many rounds as the confirmation did, within these bounds
MIN_ROUNDS = 3  # the first look (``autotune.measure.looks``): a budget of runs keeps fewer candidates, not fewer rounds
# the rounds each candidate keeps before a runner-up is kept too: three looks (3, 4, 6). At 3 rounds the first look
# is the last, on about 3 pairs (a trimmed mean's t interval with 2 degrees of freedom: t(0.99, 2) = 7); the search's
# best then has the power a runner-up would only dilute, on a budget too small for both
RUNNER_UP_ROUNDS = 6


def physical(config: Config, default: Config, phases: Sequence[str]) -> Config:
    """``config`` with its settings that cannot act at their defaults: twins have the same physical config."""
    dead = inert(config, phases)
    return {k: default.get(k) if k in dead else v for k, v in config.items()}


@dataclass
class _Look:
    est: Estimate | None
    low: float  # the reported two-sided interval, on the log scale
    high: float
    bound: float  # the one-sided lower bound that decides a recommendation, on the log scale


def _look(values: list[list[float | None]], history: list[list[list[float]]], i: int, maximize: bool, alpha: float,
          one_sided: float, how: str) -> _Look:
    """Candidate ``i`` over the default: the two-sided ``1 - alpha`` interval and the ``1 - one_sided`` lower bound."""
    est = trimmed(differences(values[i], values[0], maximize) + block_differences(history[i], history[0], maximize, how))
    if est is None or alpha <= 0:
        return _Look(est, -float("inf"), float("inf"), -float("inf"))
    lo, hi = est.interval(alpha)
    return _Look(est, lo, hi, est.interval(2 * one_sided)[0])


def weights(m: int) -> list[float]:
    """The shares of the error of ``m`` candidates in the search's order (``WEIGHTS``, renormalised)."""
    w = [*WEIGHTS[:m], *[WEIGHTS[-1]] * max(m - len(WEIGHTS), 0)]
    return [x / sum(w) for x in w]


def _needed(diffs: list[float], maximize: bool, matters: float, one_sided: float) -> int | None:
    """About how many rounds would make the one-sided ``1 - one_sided`` bound that decides a recommendation reach
    ``matters`` from the estimate (normal approximation; ``diffs``: the rounds' and history pairs' log-ratios)."""
    p = trimmed(diffs)
    if p is None or matters <= 0:
        return None
    per_round = p.var * (p.df + 1)
    h = abs(math.log1p(matters)) if maximize else -math.log1p(-matters)
    z = NormalDist().inv_cdf(1 - max(one_sided, 1e-12))
    return max(math.ceil(per_round * (z / max(h, 1e-9)) ** 2), int(p.df) + 2)


def confirm(default: Config, top: Sequence[tuple[int, Config]], rounds: int, measure: Measure, maximize: bool,
            pattern_phases: Sequence[str] = ("write",), base: int = CONFIRM_BASE,
            history: Mapping[int, Sequence[Sequence[float]]] | None = None, matters: float = MATTERS,
            seconds: float | None = None, clock: Callable[[], float] = time.monotonic,
            aggregate: str = "median", rule: tuple[int, Config, str] | None = None,
            max_runs: int | None = None) -> Confirmation:
    """Re-measure ``top`` ((trial, config) best first) and ``default`` interleaved, sequentially, at most ``rounds``
    rounds (or ``seconds``, or ``max_runs`` runs with the ablation); ``history``: earlier runs per trial number
    (-1: the default's twins), one block of runs per trial, each summarised by ``aggregate`` (the campaign's
    aggregate of N) when blocks are paired. With ``max_runs`` the runners-up are left out first (``run_plan``).
    ``rule``: the best rule of thumb (trial, config, name), measured in the same rounds as a comparator (it takes
    no part in the decision over the default); a winner not shown better than it gives way to it."""
    hist = dict(history or {})
    seen = [physical(default, default, pattern_phases)]
    entries = [("default", -1, default, True)]
    for n, cfg in top:
        if physical(cfg, default, pattern_phases) not in seen:  # a twin of the default or of a better candidate
            seen.append(physical(cfg, default, pattern_phases))
            entries.append((f"trial {n}", n, cfg, False))
    rule_key = None if rule is None else physical(rule[1], default, pattern_phases)
    cap = rounds  # the user's bound on rounds (objective.confirm)
    if max_runs is not None:
        k, rounds = run_plan(max_runs, len(entries) - 1, rounds,
                             lambda k: int(rule_key is not None and rule_key not in seen[:k + 1]))
        entries, seen = entries[:k + 1], seen[:k + 1]
    ncand = len(entries)  # the candidates are entries 1 .. ncand - 1; the rule, when not one of them, comes after
    rule_i = None
    if rule is not None:
        rule_i = seen.index(rule_key) if rule_key in seen else len(entries)
        if rule_i == len(entries):
            entries.append((f"trial {rule[0]}", rule[0], rule[1], False))
    made = [0]

    def counted(config: Config, is_default: bool, number: int) -> float | None:
        made[0] += 1
        return measure(config, is_default, number)

    configs = [(e[2], e[3]) for e in entries]
    hs = [[list(blk) for blk in hist.get(e[1], ())] for e in entries]
    vals: list[list[float | None]] = [[] for _ in entries]
    active = [True] * len(entries)
    w = [0.0, *weights(ncand - 1), *[0.0] * (len(entries) - ncand)]
    start, done, used, used1 = clock(), 0, 0.0, 0.0
    a = a1 = ALPHA  # the last look's spend (set at each look)
    plan = looks(rounds)
    look = _Look(None, -float("inf"), float("inf"), -float("inf"))
    decision, best_i = "undecided", 0
    while done < rounds:
        step = plan[0] - done if plan and seconds is None else 1  # with a time budget: the clock read every round
        for i, v in enumerate(interleaved(configs, step, counted, base, done, active)):
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
        res = {i: _look(vals, hs, i, maximize, a * w[i], a1 * w[i], aggregate) for i in range(1, ncand)}
        shown = [i for i, r in res.items() if r.bound > 0]
        for i, r in res.items():
            if r.high < log_margin(matters, maximize):
                active[i] = False  # shown not to matter: no more runs of it
        if decision == "recommend":  # shown at an earlier look: the winner stands; its interval follows the runs
            look = res[best_i] if res[best_i].bound > 0 else look
        elif res:
            best_i = max(shown or res, key=lambda i: _log_of(res[i]))
            look = res[best_i]
        if shown:
            decision = "recommend"
        elif decision != "recommend" and res and not any(active[1:ncand]):
            decision = "worse" if all(r.high < 0 for r in res.values()) else "below"
        spent = (a * w[best_i], a1 * w[best_i])
        winner = best_i if decision == "recommend" else 0
        if final or (decision != "undecided" and not rule_open(vals, hs, winner, rule_i, maximize, aggregate, spent,
                                                                  matters)):
            break
        if decision != "recommend":
            continue  # undecided: every candidate that may still matter measures on
        # shown over the default, not yet over (or within ``matters`` of) the rule: the rounds go on for that
        # question alone (the winner and the rule; the default's question is settled), on the runs left
        active = [i in (best_i, rule_i) for i in range(len(entries))]
        if max_runs is not None and seconds is None:
            more = done + extra_rounds(max_runs - made[0], sum(active), cap - done,
                                       ablation_reserve(entries[best_i][2], default, pattern_phases))
            if more > rounds:
                rounds, plan = more, [n for n in looks(more) if n > done]
    # the winner as the summary names it (the best estimate when it is above the default's, shown or not)
    win_i = best_i if best_i and (decision == "recommend" or _log_of(look) > 0) else 0
    vs_rule = None if rule is None or rule_i is None else against_rule(
        entries, vals, hs, rule_i, rule[2], win_i, maximize, aggregate,
        (a * w[best_i], a1 * w[best_i]) if best_i and done else (ALPHA, ALPHA), matters)
    left = None if max_runs is None else max_runs - made[0]
    conf = _finish(entries, vals, hs, look, best_i, decision, done, rounds, matters, maximize, counted,
                   pattern_phases, base, default, vs_rule, left)
    conf.runs, conf.max_runs = made[0], max_runs
    if decision == "undecided" and best_i:
        pairs = block_differences(hs[best_i], hs[0], maximize, aggregate)
        need = _needed(differences(vals[best_i], vals[0], maximize) + pairs, maximize, matters, ALPHA * w[best_i])
        conf.needed_rounds = None if need is None else max(need - len(pairs), done + 1)
    conf.aggregate = aggregate
    return conf


def run_plan(max_runs: int, candidates: int, rounds: int,
             extra: Callable[[int], int] = lambda k: 0) -> tuple[int, int]:
    """(candidates, rounds at most) for a confirmation of at most ``max_runs`` runs: each round runs the default,
    every candidate and ``extra(k)`` comparators once (the best rule of thumb when it is not one of the first ``k``
    candidates), so runners-up are left out (last first) until every one left gets ``RUNNER_UP_ROUNDS`` rounds (the
    search's best alone: what the runs allow, its first look at ``MIN_ROUNDS``), then the rounds are what the runs
    allow (never more than ``rounds``)."""
    k = candidates
    while k > 1 and max_runs // (k + 1 + extra(k)) < min(RUNNER_UP_ROUNDS, rounds):
        k -= 1
    return k, max(0, min(rounds, max_runs // (k + 1 + extra(k))))


def extra_rounds(runs_left: int, per_round: int, most: int, reserve: int = 0) -> int:
    """Rounds of ``per_round`` runs that ``runs_left`` (less ``reserve``, kept for the ablation) pays for, at most
    ``most``: once the default's question is settled, the confirmation's runs go to the rule's question."""
    return max(0, min(most, (runs_left - reserve) // max(per_round, 1)))


def ablation_reserve(winner: Config, default: Config, phases: Sequence[str]) -> int:
    """The runs the ablation's shortest run needs for ``winner`` (``ABLATION_ROUNDS[0]`` rounds of it and of each
    changed setting that can act reset to the default; none for a single setting, which is not ablated)."""
    changed = {k: v for k, v in winner.items() if default.get(k) != v}
    n = len(changed) - len(inert(changed, phases))
    return ABLATION_ROUNDS[0] * (1 + n) if n > 1 else 0


def _log_of(look: _Look) -> float:
    return look.est.log if look.est is not None else -math.inf


def _finish(entries: list[tuple[str, int, Config, bool]], vals: list[list[float | None]], hs: list[list[list[float]]],
            look: _Look, best_i: int, decision: str, done: int, rounds: int, matters: float, maximize: bool,
            measure: Measure, phases: Sequence[str], base: int, default: Config,
            vs_rule: RuleComparison | None = None, left: int | None = None) -> Confirmation:
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
    if vs_rule is not None:
        conf.rule, conf.over_rule = vs_rule.rule, vs_rule.over_rule
    if vs_rule is not None and vs_rule.stands and (decision != "recommend" or vs_rule.gives_way):
        # nothing is shown better than the rule of thumb, what the user would do anyway, and it is shown to cost at
        # most what matters against the default: recommend the rule (a winner shown over the default but not over
        # the rule, or nothing shown over the default at all)
        _recommend_rule(conf, entries[vs_rule.index][2], default, phases)
    elif decision == "recommend":
        conf.recommended = ablate(conf, winner["config"], default, measure, maximize, phases, base,
                                   min(max(done, ABLATION_ROUNDS[0]), ABLATION_ROUNDS[1]), left)
    return conf


def _recommend_rule(conf: Confirmation, rule: Config, default: Config, phases: Sequence[str]) -> None:
    """Recommend the rule of thumb ``rule``: its settings that differ from the default and can act, as its source
    gives them (no ablation)."""
    conf.recommends_rule = True
    changed = {k: v for k, v in rule.items() if default.get(k) != v}
    for name, why in inert(changed, phases).items():
        conf.dropped[name] = why
        changed.pop(name)
    conf.recommended = changed

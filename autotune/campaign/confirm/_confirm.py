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

The winner's changed settings that cannot act are dropped without measuring; the others are ablated: each reset
to its default and measured interleaved with the winner. A setting is dropped only when it is shown not to carry
the gain: its cost is within the jitter (the 95% interval reaches zero), and the upper ends of the 95% intervals
of the dropped settings' costs, added up, stay below the winner's confirmed lower bound and below what matters
(``matters``: dropping a setting must not risk more than the campaign counts as worth having); settings that only act
together (neither alone costs a clear amount, both together the whole gain) are therefore kept together, and if
every setting would go, the one whose loss costs most stays.

The best rule of thumb the campaign ran (``autotune.space.rules_of_thumb``: what a user would try first) is
measured in the same rounds, as a comparator: it takes no part in the decision over the default (whose error
and intervals stay as above), but the winner's margin over it is estimated from the same pairs, with the interval
at the winner's share of the error. A winner whose one-sided lower bound over the rule does not clear zero is not
shown better than what the user would have done anyway: the rule is recommended instead (its settings as its
source gives them, without ablation), and the summary says so.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

from autotune.campaign.confirm._confirmation import MATTERS, Confirmation
from autotune.hints import inert
from autotune.measure import (
    ALPHA,
    INTERIM,
    Estimate,
    block_differences,
    differences,
    looks,
    margin,
    paired,
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
            if r.high < _log(matters, maximize):
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
        # shown over the default, not yet over (or within ``matters`` of) the rule: the rounds go on for that
        # question alone (the winner, the rule and the default)
        active = [i in (0, best_i, rule_i) for i in range(len(entries))]
    vs_rule = None if rule is None or rule_i is None else against_rule(
        entries, vals, hs, rule_i, rule[2], best_i if decision == "recommend" else 0, maximize, aggregate,
        (a * w[best_i], a1 * w[best_i]) if best_i and done else (ALPHA, ALPHA))
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


@dataclass
class RuleComparison:
    """The best rule of thumb in the confirmation: its gain over the default and the winner's over it."""

    index: int  # its entry
    rule: dict[str, Any]  # {name, label, trial, margin, low, high}: the rule over the default
    over_rule: dict[str, Any] | None  # {margin, low, high, bound}: the winner over the rule (None: it is the rule)
    gives_way: bool  # the winner is not shown better than the rule


def against_rule(entries: list[tuple[str, int, Config, bool]], vals: list[list[float | None]],
                 hs: list[list[list[float]]], rule_i: int, name: str, winner_i: int, maximize: bool, aggregate: str,
                 spent: tuple[float, float]) -> RuleComparison:
    """The rule of thumb (entry ``rule_i``) over the default, and the winner (entry ``winner_i``; 0: the default)
    over the rule, from the same interleaved rounds and pooled history, at the error the winner's last look spent
    (``spent``: two-sided, one-sided), so that they read like the winner's interval over the default."""
    alpha, one_sided = spent

    def compare(i: int, j: int) -> dict[str, Any]:
        est = trimmed(differences(vals[i], vals[j], maximize) + block_differences(hs[i], hs[j], maximize, aggregate))
        if est is None:
            return {"margin": 0.0, "low": -1.0, "high": float("inf"), "bound": None}
        if alpha <= 0:
            return {"margin": margin(est.log, maximize), "low": -1.0, "high": float("inf"), "bound": None}
        lo, hi = est.interval(alpha)
        return {"margin": margin(est.log, maximize), "low": margin(lo, maximize), "high": margin(hi, maximize),
                "bound": margin(est.interval(2 * one_sided)[0], maximize)}

    rule = {"name": name, "label": entries[rule_i][0], "trial": entries[rule_i][1],
            **({"margin": 0.0, "low": 0.0, "high": 0.0} if rule_i == 0 else
               {k: v for k, v in compare(rule_i, 0).items() if k != "bound"})}
    if winner_i == rule_i:
        return RuleComparison(rule_i, rule, None, False)
    over = compare(winner_i, rule_i)  # a rule that could not be measured (every run failed) is never recommended
    return RuleComparison(rule_i, rule, over, winner_i != 0 and over["bound"] is not None and over["bound"] <= 0)


def run_plan(max_runs: int, candidates: int, rounds: int,
             extra: Callable[[int], int] = lambda k: 0) -> tuple[int, int]:
    """(candidates, rounds at most) for a confirmation of at most ``max_runs`` runs: each round runs the default,
    every candidate and ``extra(k)`` comparators once (the best rule of thumb when it is not one of the first ``k``
    candidates), so runners-up are left out (last first) until every one left gets ``MIN_ROUNDS`` rounds, then the
    rounds are what the runs allow (never more than ``rounds``)."""
    k = candidates
    while k > 1 and max_runs // (k + 1 + extra(k)) < MIN_ROUNDS:
        k -= 1
    return k, max(0, min(rounds, max_runs // (k + 1 + extra(k))))


def rule_open(vals: list[list[float | None]], hs: list[list[list[float]]], winner_i: int, rule_i: int | None,
              maximize: bool, aggregate: str, spent: tuple[float, float], matters: float) -> bool:
    """Whether the winner (entry ``winner_i``; 0: none yet) is neither shown better than the rule of thumb (entry
    ``rule_i``) nor shown within ``matters`` of it: the user's choice between them is still open, so a confirmation
    that has shown the winner over the default measures on. "Better" is judged at the error the winner's look
    spent; "within ``matters``" at the plain 95% level at every look: stopping there only hands the
    recommendation to the rule (the outcome without evidence), so it spends no error (a non-binding futility
    bound: Jennison and Turnbull 2000, Group Sequential Methods with Applications to Clinical Trials)."""
    if rule_i is None or winner_i in (0, rule_i):
        return False
    est = trimmed(differences(vals[winner_i], vals[rule_i], maximize)
                  + block_differences(hs[winner_i], hs[rule_i], maximize, aggregate))
    if est is None or spent[0] <= 0:
        return False
    return est.interval(2 * spent[1])[0] <= 0 and est.interval(ALPHA)[1] >= _log(matters, maximize)


def _log_of(look: _Look) -> float:
    return look.est.log if look.est is not None else -math.inf


def _log(gain: float, maximize: bool) -> float:
    """The log-ratio of a margin (the inverse of ``autotune.measure.margin``)."""
    return math.log1p(gain) if maximize else -math.log1p(-gain)


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
    if decision == "recommend" and vs_rule is not None and vs_rule.gives_way:
        conf.recommends_rule = True  # the tuned configuration is not shown better than the rule: recommend the rule
        rule_cfg = entries[vs_rule.index][2]
        changed = {k: v for k, v in rule_cfg.items() if default.get(k) != v}
        for name, why in inert(changed, phases).items():
            conf.dropped[name] = why
            changed.pop(name)
        conf.recommended = changed
    elif decision == "recommend":
        conf.recommended = _ablate(conf, winner["config"], default, measure, maximize, phases, base,
                                   min(max(done, ABLATION_ROUNDS[0]), ABLATION_ROUNDS[1]), left)
    return conf


def _ablate(conf: Confirmation, cfg: Config, default: Config, measure: Measure, maximize: bool,
            phases: Sequence[str], base: int, rounds: int, left: int | None = None) -> dict[str, Any]:
    """The winner's changed settings that can act and matter (see the module's docstring); ``left``: the runs
    the ablation may make (too few for 2 rounds: no ablation, every setting that can act is kept)."""
    changed = {k: v for k, v in cfg.items() if default.get(k) != v}
    for name, why in inert(changed, phases).items():
        conf.dropped[name] = why
        changed.pop(name)
    if len(changed) > 1 and left is not None:
        rounds = min(rounds, left // (1 + len(changed)))
        if rounds < 2:
            conf.note = (f"no ablation: {left} run(s) left of the confirmation's budget, fewer than 2 rounds of the "
                         f"winner and its {len(changed)} settings reset one at a time; all its settings are kept")
            return changed
    if len(changed) > 1:
        ablated = [({**cfg, **{k: default.get(k)}}, False) for k in changed]
        res = interleaved([(cfg, False), *ablated], rounds, measure, base + 32)
        highs: dict[str, float] = {}  # the upper ends of the costs that are not shown to be above zero
        for k, v in zip(changed, res[1:], strict=True):
            est = paired(res[0], v, maximize)
            log, (clo, chi) = (est.log, est.interval()) if est else (0.0, (-float("inf"), float("inf")))
            conf.ablation[k] = {"values": v, "cost": margin(log, maximize), "low": margin(clo, maximize),
                                "high": margin(chi, maximize)}
            if clo <= 0:
                highs[k] = chi
        # drop only what is shown not to carry the gain: a cost within the jitter, and the upper ends of the
        # dropped settings' costs together below the winner's confirmed lower bound and below what matters (settings
        # that act together are kept together)
        budget = _log(conf.bound, maximize) if conf.bound is not None and conf.bound > -1 else 0.0
        budget = min(budget, _log(conf.matters, maximize))
        spent = 0.0
        for k in sorted(highs, key=lambda k: highs[k]):
            if spent + max(highs[k], 0.0) >= budget:
                break
            spent += max(highs[k], 0.0)
            a = conf.ablation[k]
            conf.dropped[k] = (f"dropping it cost {a['cost']:+.1%} (95% interval {a['low']:+.1%} to {a['high']:+.1%}): "
                               f"within the jitter, and with the other settings dropped less than the confirmed gain "
                               f"(at least {conf.bound:+.1%}) and than what matters ({conf.matters:.0%})")
        if all(k in conf.dropped for k in changed):  # together they won: keep the one whose loss costs most
            conf.dropped.pop(max(changed, key=lambda k: conf.ablation[k]["cost"]))
        changed = {k: v for k, v in changed.items() if k not in conf.dropped}
    return changed

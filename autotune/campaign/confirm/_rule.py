"""The best rule of thumb in the confirmation: its gain over the default, the winner's over it, and whether the
user's choice between them is still open.

The best rule of thumb the campaign ran (``autotune.space.rules_of_thumb``: what a user would try first) is
measured in the same rounds, as a comparator: it takes no part in the decision over the default (whose error
and intervals stay as above), but the winner's margin over it is estimated from the same pairs, with the interval
at the winner's share of the error. The rule is what the user would have done anyway, so it is the fallback: when
nothing is shown better than it (the winner's one-sided lower bound over the rule does not clear zero, or no
candidate is shown better than the default), the rule is recommended (its settings as its source gives them,
without ablation) unless the default is estimated better and the rule is not shown to cost the user at most what
matters against it (its one-sided 95% lower bound over the default above ``-matters``); then the default. The summary
says which and why. "Not shown worse than the default" would not do: at the campaign's budget a rule truly 10%
worse than the default is rarely shown worse, and was recommended in up to 36 of 50 simulated campaigns; requiring
the bound alone kept the default in half the simulated campaigns whose rule was truly 6% better than it
(``experiments/evaluation/confirm_rule.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from autotune.measure import ALPHA, TRIM_FROM, block_differences, differences, margin, trimmed
from autotune.space import Config

# The winner over the rule is trimmed from six pairs on, not five: at five (a 5-trial campaign's 15 confirmation
# runs: 5 rounds of the default, the winner and the rule) one pair trimmed from each end leaves two degrees of
# freedom, and Student's t on the five has more power under normal, Laplace and one-sided noise and holds its level
# (experiments/evaluation/results/trim_small.txt; under symmetric pairs Student's t is conservative at the usual
# levels: Efron 1969, J Am Stat Assoc 64). The decision over the default keeps the design's trimming from five,
# whose error and coverage docs/guide/confirmation.md measured: used there, Student's t at five over-covered under
# one-sided noise (98.0% at nominal 95%) and made one more false recommendation, in 100 null campaigns on the
# evaluation's seeds and in 300 on fresh ones.
RULE_TRIM_FROM = 6


@dataclass
class RuleComparison:
    """The best rule of thumb in the confirmation: its gain over the default and the winner's over it."""

    index: int  # its entry
    rule: dict[str, Any]  # {name, label, trial, margin, low, high}: the rule over the default
    over_rule: dict[str, Any] | None  # {margin, low, high, bound}: the winner over the rule (None: it is the rule)
    gives_way: bool  # the winner is not shown better than the rule
    near: bool = False  # the rule is estimated no worse than the default, or shown to cost at most ``matters``

    @property
    def stands(self) -> bool:
        """Whether the rule can be the fallback: a configuration other than the default, shown within what matters
        of it (a rule that could not be measured never is)."""
        return self.index != 0 and self.near


def against_rule(entries: list[tuple[str, int, Config, bool]], vals: list[list[float | None]],
                 hs: list[list[list[float]]], rule_i: int, name: str, winner_i: int, maximize: bool, aggregate: str,
                 spent: tuple[float, float], matters: float = 0.05) -> RuleComparison:
    """The rule of thumb (entry ``rule_i``) over the default, and the winner (entry ``winner_i``; 0: the default)
    over the rule, from the same interleaved rounds and pooled history, at the error the winner's last look spent
    (``spent``: two-sided, one-sided), so that they read like the winner's interval over the default."""
    alpha, one_sided = spent

    def compare(i: int, j: int, trim_from: int = TRIM_FROM) -> dict[str, Any]:
        est = trimmed(differences(vals[i], vals[j], maximize) + block_differences(hs[i], hs[j], maximize, aggregate),
                      trim_from=trim_from)
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
    floor = rule_floor(vals, hs, rule_i, maximize, aggregate) if rule_i else None
    if floor is not None:
        rule["floor"] = margin(floor, maximize)
    # the fallback stands unless the default is estimated better and the rule is not shown within what matters
    near = floor is not None and (rule["margin"] >= 0 or floor > log_margin(-matters, maximize))
    if winner_i == rule_i:
        return RuleComparison(rule_i, rule, None, False, near)
    over = compare(winner_i, rule_i, RULE_TRIM_FROM)  # a rule that could not be measured is never recommended
    return RuleComparison(rule_i, rule, over, winner_i != 0 and over["bound"] is not None and over["bound"] <= 0,
                          near)


def rule_floor(vals: list[list[float | None]], hs: list[list[list[float]]], rule_i: int, maximize: bool,
               aggregate: str) -> float | None:
    """The one-sided 95% lower bound of the rule of thumb (entry ``rule_i``) over the default on the log scale,
    from the same pairs (rounds and balanced history); None when there is no pair to judge. The rule is the
    fallback only when this lies above ``-matters`` (a non-inferiority test, judged once at the end): then a rule
    that costs the user more than what matters against the default is recommended with probability at most 5%."""
    est = trimmed(differences(vals[rule_i], vals[0], maximize)
                  + block_differences(hs[rule_i], hs[0], maximize, aggregate))
    return None if est is None else est.interval(2 * ALPHA)[0]


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
                  + block_differences(hs[winner_i], hs[rule_i], maximize, aggregate), trim_from=RULE_TRIM_FROM)
    if est is None or spent[0] <= 0:
        return False
    return est.interval(2 * spent[1])[0] <= 0 and est.interval(ALPHA)[1] >= log_margin(matters, maximize)


def log_margin(gain: float, maximize: bool) -> float:
    """The log-ratio of a margin (the inverse of ``autotune.measure.margin``)."""
    return math.log1p(gain) if maximize else -math.log1p(-gain)

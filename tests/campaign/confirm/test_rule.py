"""The best rule of thumb as the fallback of a confirmation: recommended whenever nothing is shown better than it,
unless the default is estimated better and the rule is not shown to cost at most what matters (5%) against it."""

from __future__ import annotations

import math
from collections import defaultdict

from autotune.campaign.confirm._rule import RULE_TRIM_FROM, against_rule, rule_floor
from autotune.campaign.confirm._sequential import confirm
from autotune.campaign.run._report import winner_of
from autotune.measure import ALPHA, trimmed
from autotune.space import Config

DEFAULT = {"mpiio.romio_cb_write": "automatic", "mpiio.cb_nodes": 1, "mpiio.romio_ds_write": "automatic"}
TUNED = {**DEFAULT, "mpiio.cb_nodes": 4}
RULE = {**DEFAULT, "mpiio.cb_nodes": 2}
JITTER = (0.03, -0.03, 0.01, -0.01, 0.02, -0.02, 0.0, 0.015, -0.015, 0.005, -0.005, 0.025)  # log scale, symmetric


class Pattern:
    """Deterministic runs: the n-th run of a configuration is its level times exp(JITTER[n + 3 cb_nodes]) (no draws)."""

    def __init__(self, levels: dict[int, float], scale: float = 1.0) -> None:
        self.levels, self.count, self.scale = levels, defaultdict[int, int](int), scale

    def __call__(self, config: Config, is_default: bool, number: int) -> float:
        key = int(config["mpiio.cb_nodes"])
        n = self.count[key]
        self.count[key] += 1
        return self.levels[key] * math.exp(self.scale * JITTER[(n + 3 * key) % len(JITTER)])


def _undecided(rule_level: float, scale: float = 1.0) -> tuple[bool, dict[str, object], str]:
    """A tuned configuration 1% over the default (never shown in 6 rounds), the rule at ``rule_level``; ``scale``
    widens the runs' jitter."""
    conf = confirm(DEFAULT, [(7, TUNED)], 6, Pattern({1: 100.0, 4: 101.0, 2: rule_level}, scale), maximize=True,
                   rule=(2, RULE, "two-aggregators"))
    assert not conf.proven  # nothing is shown better than the default
    return conf.recommends_rule, conf.recommended, conf.claim()


def test_nothing_shown_better_the_rule_within_the_noise_is_recommended_and_the_summary_says_why() -> None:
    """The rule 4% over the default, not shown in 6 rounds: the user's own choice stands."""
    rule, recommended, claim = _undecided(104.0)
    assert rule and recommended == {"mpiio.cb_nodes": 2}
    assert ("nothing is shown better than the default; the rule of thumb two-aggregators is what a user would do "
            "anyway and is shown to cost at most 5% against the default (at least") in claim


def test_nothing_shown_better_a_rule_slightly_worse_but_shown_within_what_matters_is_still_recommended() -> None:
    rule, recommended, _ = _undecided(99.0)
    assert rule and recommended == {"mpiio.cb_nodes": 2}


def test_in_noise_too_wide_to_bound_it_a_rule_estimated_no_worse_than_the_default_stands() -> None:
    """Runs spread up to +-60% (the jitter x20): six rounds bound nothing within 5%; the rule's estimate decides."""
    rule, recommended, claim = _undecided(103.0, scale=20)
    assert rule and recommended == {"mpiio.cb_nodes": 2}
    assert "the rule of thumb two-aggregators is what a user would do anyway and is estimated no worse than the " \
           "default (+" in claim and "not shown either way)" in claim
    rule, recommended, claim = _undecided(90.0, scale=20)
    assert not rule and recommended == {} and "is estimated worse than the default (-" in claim


def test_nothing_shown_better_a_rule_not_shown_within_what_matters_gives_the_defaults_and_says_why() -> None:
    rule, recommended, claim = _undecided(94.0)
    assert not rule and recommended == {} and claim.startswith("recommendation: the system's defaults")
    assert "the rule of thumb two-aggregators is estimated worse than the default (-5.6%)" in claim
    assert "and not shown to cost less than 5% against it (at least" in claim


def test_a_rule_that_is_the_default_is_no_fallback() -> None:
    conf = confirm(DEFAULT, [(7, TUNED)], 6, Pattern({1: 100.0, 4: 101.0}), maximize=True,
                   rule=(0, dict(DEFAULT), "stripe-per-node"))
    assert not conf.recommends_rule and conf.recommended == {}


def test_the_rule_as_the_only_candidate_not_shown_better_is_recommended_as_the_rule() -> None:
    """The search's best is the rule itself: the summary names it as the rule, not as a winner over itself."""
    conf = confirm(DEFAULT, [(2, RULE)], 6, Pattern({1: 100.0, 2: 100.0}), maximize=True,
                   rule=(2, RULE, "two-aggregators"))
    assert not conf.proven and conf.recommends_rule and conf.recommended == {"mpiio.cb_nodes": 2}
    assert "winner trial 2 is the rule of thumb two-aggregators" in "\n".join(conf.lines("bw"))
    assert winner_of(dict(conf.__dict__)) == (2, RULE)  # the summary shows the rule's configuration


def _near(shift: float) -> bool:
    """Whether a rule whose six rounds are the default's times exp(shift + symmetric jitter) is the fallback."""
    vals: list[list[float | None]] = [[100.0] * 6, [100.0 * math.exp(shift + j) for j in JITTER[:6]]]
    floor = rule_floor(vals, [[], []], 1, True, "best")
    assert floor is not None
    return floor > math.log(0.95)


def test_the_fallback_needs_the_one_sided_95_percent_lower_bound_above_minus_5_percent_just_inside_and_outside() -> None:
    est = trimmed(list(JITTER[:6]))  # the jitter alone: a shift moves its lower bound by as much
    assert est is not None and abs(est.log) < 1e-12
    edge = math.log(0.95) - est.interval(2 * ALPHA)[0]  # the shift that puts the lower bound at -5%
    assert _near(edge + 1e-6)  # the lower bound just above -5%: the rule stands
    assert not _near(edge - 1e-6)  # just below: the defaults


def test_a_rule_with_no_runs_has_no_bound_and_is_never_the_fallback() -> None:
    assert rule_floor([[100.0] * 3, [None] * 3], [[], []], 1, True, "best") is None


def test_for_a_time_the_fallback_reads_the_same_way() -> None:
    """A runtime (lower is better): a rule 3% faster, not shown, is recommended; one 7% slower is not."""
    def run(rule_level: float) -> bool:
        conf = confirm(DEFAULT, [(7, TUNED)], 6, Pattern({1: 100.0, 4: 99.0, 2: rule_level}), maximize=False,
                       rule=(2, RULE, "two-aggregators"))
        assert not conf.proven
        return conf.recommends_rule

    assert run(97.0) and not run(107.0)


def test_five_rounds_each_favouring_the_winner_show_it_over_the_rule_with_students_t() -> None:
    """A 5-trial campaign's 15 confirmation runs give 5 rounds: the winner 10-50% over the rule in every one. The
    trimmed t (two degrees of freedom at five pairs) does not show it; Student's t on the five does."""
    entries = [("default", -1, DEFAULT, True), ("trial 7", 7, TUNED, False), ("trial 2", 2, RULE, False)]
    vals: list[list[float | None]] = [[50.0] * 5, [110.0, 120.0, 130.0, 140.0, 150.0], [100.0] * 5]
    comp = against_rule(entries, vals, [[], [], []], 2, "two-aggregators", 1, True, "best", (ALPHA, ALPHA / 2))
    assert RULE_TRIM_FROM == 6 and comp.over_rule is not None and comp.over_rule["bound"] > 0
    assert not comp.gives_way  # the winner stands
    diffs = [math.log(v / 100.0) for v in (110.0, 120.0, 130.0, 140.0, 150.0)]
    trimmed_t, students_t = trimmed(diffs), trimmed(diffs, trim_from=RULE_TRIM_FROM)
    assert trimmed_t is not None and students_t is not None and (trimmed_t.df, students_t.df) == (2, 4)
    assert trimmed_t.interval(ALPHA)[0] < 0 < students_t.interval(ALPHA)[0]

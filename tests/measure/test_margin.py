"""Margins on the log scale: paired rounds, blocked unpaired runs, their combination, alpha spending."""

from __future__ import annotations

import math

import numpy as np
import pytest

from autotune.measure import (
    ALPHA,
    INTERIM,
    TRIM,
    block_differences,
    combine,
    differences,
    looks,
    margin,
    paired,
    spend,
    trimmed,
    unpaired,
)
from autotune.measure._margin import Estimate, t_quantile


@pytest.mark.parametrize(("p", "df", "q"), [(0.975, 1, 12.7062), (0.975, 2, 4.3027), (0.975, 10, 2.2281),
                                            (0.995, 5, 4.0321), (0.975, 1e9, 1.95996), (0.025, 10, -2.2281)])
def test_t_quantiles_match_the_tables(p: float, df: float, q: float) -> None:
    assert t_quantile(p, df) == pytest.approx(q, abs=1e-3)


def test_paired_rounds_give_the_mean_log_ratio_and_skip_failed_rounds() -> None:
    est = paired([110.0, 120.0, None, 100.0], [100.0, 100.0, 90.0, 100.0], maximize=True)
    assert est is not None and est.df == 2
    d = [math.log(1.1), math.log(1.2), 0.0]
    assert est.log == pytest.approx(sum(d) / 3)
    assert paired([1.0, None], [1.0, 2.0], True) is None  # one complete round: no interval


def test_a_time_is_better_when_smaller() -> None:
    est = paired([1.0, 1.0, 1.0], [2.0, 2.0, 2.0], maximize=False)
    assert est is not None and margin(est.log, False) == pytest.approx(0.5)  # half the time: +50%
    assert margin(math.log(2), True) == pytest.approx(1.0)


def test_unpaired_runs_are_blocked_by_trial() -> None:
    # the candidate's trials differ by load; the variance comes from the spread between trial means
    est = unpaired([[100.0, 100.0], [120.0, 120.0]], [[90.0, 90.0, 90.0]], maximize=True)
    assert est is not None and est.df == 1
    assert est.log == pytest.approx((math.log(100) + math.log(120)) / 2 - math.log(90))
    assert est.var == pytest.approx(((math.log(120) - math.log(100)) ** 2 / 2) * 1.5)
    assert unpaired([[100.0]], [[90.0]], True) is None and unpaired([], [[1.0], [2.0]], True) is None


def test_combining_two_equal_estimates_halves_the_variance_up_to_the_weight_correction() -> None:
    e = Estimate(0.1, 0.01, 10)
    c = combine([e, e, None])
    assert c is not None and c.log == pytest.approx(0.1)
    assert c.var == pytest.approx(0.005 * (1 + 4 * 2 * 0.25 / 10))
    assert c.df == pytest.approx(20)
    assert combine([None]) is None


def test_spending_is_small_before_the_last_look_and_sums_to_alpha_and_the_looks_end_at_the_budget() -> None:
    used = 0.0
    for n in looks(30):
        used += spend(n == 30, used)
        assert used <= ALPHA + 1e-15
    assert used == pytest.approx(ALPHA) and spend(False, 0.0) == INTERIM
    assert spend(False, ALPHA - INTERIM / 2) == pytest.approx(INTERIM / 2) and spend(True, ALPHA) == 0.0
    assert looks(30) == [3, 4, 6, 9, 14, 21, 30] and looks(3) == [3] and looks(2) == [2]


@pytest.mark.parametrize("one_sided", [False, True])
def test_the_paired_interval_covers_the_true_margin_about_95_percent(one_sided: bool) -> None:
    """A small version of experiments/evaluation/confirm_eval.py's coverage table (600 simulations, 5 rounds)."""
    rng = np.random.default_rng(3)
    delta, hit, sims = math.log(1.08), 0, 600
    for _ in range(sims):
        common = rng.normal(0, 0.05, 5)
        noise = (-rng.exponential(0.1, (2, 5))) if one_sided else rng.normal(0, 0.12, (2, 5))
        est = paired(list(np.exp(delta + common + noise[0])), list(np.exp(common + noise[1])), True)
        assert est is not None
        lo, hi = est.interval()
        hit += lo <= delta <= hi
    assert 0.91 <= hit / sims <= 0.99


def test_the_trimmed_mean_trims_a_fifth_from_each_end_with_the_winsorised_variance() -> None:
    d = [0.0, 1.0, 2.0, 3.0, 100.0]  # g = 1: the mean of 1, 2, 3; winsorised 1, 1, 2, 3, 3
    est = trimmed(d)
    assert est is not None and est.log == pytest.approx(2.0) and est.df == 2
    w = [1.0, 1.0, 2.0, 3.0, 3.0]
    sw2 = sum((x - 2.0) ** 2 for x in w) / 4
    assert est.var == pytest.approx(4 * sw2 / (3 * 2))
    assert trimmed([0.1, 0.3]) == Estimate(0.2, pytest.approx(0.01), 1)  # type: ignore[arg-type]
    assert trimmed([0.1]) is None and TRIM == 0.2


def test_below_trim_from_nothing_is_trimmed() -> None:
    d = [0.0, 1.0, 2.0, 3.0, 100.0]
    est = trimmed(d, trim_from=6)  # Student's t on all five: the mean, four degrees of freedom
    assert est is not None and est.log == pytest.approx(21.2) and est.df == 4
    assert est.var == pytest.approx(np.var(d, ddof=1) / 5)
    six = trimmed([*d, 4.0], trim_from=6)
    assert six is not None and six.df == 3  # from six on, one from each end


def test_history_trials_are_paired_one_to_one_in_order_with_the_same_summary_of_the_same_number_of_runs() -> None:
    a = [[100.0, 120.0, 110.0], [90.0, None], [130.0]]
    b = [[100.0, 80.0], [50.0, 60.0, 70.0]]
    assert block_differences(a, b, True, "best") == pytest.approx([math.log(120 / 100), math.log(90 / 50)])
    assert block_differences(a, b, True, "median") == pytest.approx([math.log(110 / 90), math.log(90 / 50)])
    assert block_differences(a, b, False, "best") == pytest.approx([-math.log(100 / 80), -math.log(90 / 50)])
    assert block_differences([], b, True) == [] and differences([1.0, None, 2.0], [1.0, 1.0, 1.0], True) == [
        0.0, pytest.approx(math.log(2))]


def test_many_candidate_trials_against_one_default_trial_do_not_make_false_gains_under_one_sided_noise() -> None:
    """Interference only slows runs down: one default trial's mean is skewed low, so an unbalanced comparison
    (the blocked two-sample t) shows a gain where there is none too often; balanced pairs do not."""
    rng = np.random.default_rng(11)
    sims, alpha = 1500, 0.04  # the one-sided error share of the search's best at the last look

    def trial() -> list[float]:
        heavy = rng.random(3) < 0.1
        return list(np.exp(rng.normal(0, 0.05) - np.where(heavy, rng.exponential(0.28, 3), rng.exponential(0.07, 3))))

    old = new = 0
    for _ in range(sims):
        cand, base = [trial() for _ in range(6)], [trial()]
        rounds = [trial()[0] for _ in range(20)], [trial()[0] for _ in range(20)]
        u = unpaired(cand, base, True)
        assert u is not None
        old += u.interval(2 * alpha)[0] > 0
        est = trimmed(differences(*rounds, True) + block_differences(cand, base, True, "best"))
        assert est is not None
        new += est.interval(2 * alpha)[0] > 0
    assert old / sims > 0.055  # the unbalanced comparison: well above its nominal 4%
    assert new / sims < 0.05

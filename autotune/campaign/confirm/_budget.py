"""What the confirmation may cost, known before the night: its runs and its time within the campaign's budget, and
the smallest gain it can show.

By default the confirmation makes no more runs than the search made (``objective.confirm.runs``: ``search``, or a
number): a campaign that spent N runs looking spends at most N more making sure, so a user who budgets a search
knows the whole cost is at most twice that. A search that made fewer runs than its budget allowed (a small space
measured whole before ``budget.trials`` was spent) leaves the rest to the confirmation, up to ``budget.trials`` x
``objective.repeats``: the bound ``tune --dry-run`` states before the night, so the whole cost stays within twice
the budget, and the runs go where the question is still open (a winner against the rule of thumb a few percent
below it). Within the runs, each round runs the default and every candidate
once; runners-up are left out first so that the candidates left get 6 rounds (three looks; the search's best
alone gets what the runs allow: ``_confirm.run_plan``), and the ablation takes what the rounds left (none left:
every setting is kept). The rounds are also bounded by ``objective.confirm`` (80) and the time by
``objective.confirm.time`` and by what is left of ``budget.wall_time``: the search stops early enough to leave the
first look's runs (``confirmation_reserve``).

Fewer rounds do not change the error rate or the interval's coverage (the looks' error spending holds for any
last round, ``_confirm``): they lower the power, which is why the smallest gain the budget can show is printed
by ``tune --dry-run`` (``smallest_gain``): at the noise seen so far, or, before any trial, at an assumed run
log-sd of 0.14 (the noise the confirmation was designed and evaluated for: docs/guide/confirmation.md).
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import Any

import optuna
from optuna.trial import TrialState

from autotune import trialrecord
from autotune.campaign.confirm._sequential import MIN_ROUNDS, TOP, run_plan, weights
from autotune.measure import INTERIM, looks, spend, trimmed

ASSUMED_SD = 0.14  # a run's log-sd before any trial (docs/guide/confirmation.md: the design's noise)


def search_runs(study: optuna.Study) -> int:
    """The runs the search made: every repetition of every trial that ran (a failed one counts too)."""
    return sum(max(1, len(trialrecord.read(t).repetitions)) for t in trialrecord.ran_trials(study.get_trials(deepcopy=False)))


def runs_budget(campaign: Any, study: optuna.Study) -> tuple[int, str]:
    """The confirmation's runs at most, and why: ``objective.confirm.runs``, else as many as the search made or, when
    it made fewer than its budget allowed (a space measured whole before ``budget.trials`` was spent), as many as
    the budget allowed: ``budget.trials`` x ``objective.repeats``, the bound ``tune --dry-run`` states."""
    o, b = campaign.objective, campaign.budget
    if o.confirm_runs is not None:
        return int(o.confirm_runs), "objective.confirm.runs"
    made = search_runs(study)
    budgeted = b.trials * o.repeats if b.trials is not None else 0
    if budgeted > made:
        return budgeted, (f"the search's budget of {b.trials} trials x {o.repeats} repetitions; it made {made}, "
                          "unless objective.confirm.runs says otherwise")
    return made, "as many as the search made, unless objective.confirm.runs says otherwise"


def noise_seen(study: optuna.Study) -> tuple[float, int] | None:
    """A run's log-sd pooled over the completed trials' repetitions, and the trials it pools (None: no trial has
    two positive values)."""
    ss, df, n = 0.0, 0, 0
    for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
        logs = [math.log(v) for v in trialrecord.read(t).repetitions if v is not None and v > 0]
        if len(logs) >= 2:
            m = sum(logs) / len(logs)
            ss += sum((x - m) ** 2 for x in logs)
            df += len(logs) - 1
            n += 1
    return (math.sqrt(ss / df), n) if df else None


def smallest_gain(sd: float, rounds: int, candidates: int) -> float | None:
    """The smallest true gain the search's best candidate is shown to have (its one-sided bound above zero at the
    last look) when the rounds estimate it exactly, at a run log-sd of ``sd``; the campaign's history pairs, which
    the confirmation pools too, only lower it. None below 2 rounds."""
    if rounds < 2 or candidates < 1:
        return None
    quantiles = [NormalDist().inv_cdf((i + 0.5) / rounds) for i in range(rounds)]
    est = trimmed([math.sqrt(2) * sd * q for q in quantiles])  # a pair's log-ratio: two runs' noise
    if est is None:
        return None
    one_sided = spend(True, (len(looks(rounds)) - 1) * INTERIM / 2) * weights(candidates)[0]
    return math.expm1(est.log - est.interval(2 * one_sided)[0])


def confirmation_reserve(campaign: Any, study: optuna.Study, seconds_per_run: float) -> float:
    """Seconds of ``budget.wall_time`` the search leaves for the confirmation's first look (0: it does not run)."""
    if not confirms(campaign):
        return 0.0
    k, rounds = run_plan(runs_budget(campaign, study)[0], TOP, campaign.objective.confirm)
    return min(rounds, MIN_ROUNDS) * (k + 1) * seconds_per_run


def confirms(campaign: Any) -> bool:
    """Whether the campaign ends with a confirmation (on, one objective, not a grid sweep)."""
    return bool(campaign.objective.confirm) and campaign.objective.cost is None and campaign.sampler.get("name") != "grid"


def dry_run_lines(campaign: Any, study: optuna.Study | None = None) -> list[str]:
    """What ``tune --dry-run`` says of the confirmation: its runs at most and the smallest gain it can show."""
    o, b = campaign.objective, campaign.budget
    if not confirms(campaign):
        return ["confirmation: off (objective.confirm: 0, two objectives or a grid sweep): no extra runs"]
    if o.confirm_runs is not None:
        runs, why = o.confirm_runs, "objective.confirm.runs"
    elif study is not None and search_runs(study) and (b.trials is None or search_runs(study) > b.trials * o.repeats):
        runs, why = search_runs(study), "as many as the search made so far"
    elif b.trials is not None:
        runs, why = b.trials * o.repeats, f"as many as the search's {b.trials} trials x {o.repeats} repetitions"
    else:
        return [f"confirmation: at most as many runs as the search makes (budget.wall_time bounds both), at most "
                f"{o.confirm} rounds"]
    k, rounds = run_plan(runs, TOP, o.confirm)
    seen = noise_seen(study) if study is not None else None
    sd, noise = (seen[0], f"the noise seen so far (run log-sd {seen[0]:.3f} over {seen[1]} trials)") if seen else \
        (ASSUMED_SD, f"an assumed run log-sd of {ASSUMED_SD} (no trial yet; the design's noise, about 19% spread "
                     "of 3 runs)")
    gain = smallest_gain(sd, rounds, k)
    time = f"; at most {o.confirm_seconds:g} s" if o.confirm_seconds is not None else ""
    wall = "; within budget.wall_time" if b.wall_time is not None else ""
    lines = [f"confirmation: at most {runs} runs ({why}): {rounds} rounds of the default and {k} candidate(s), "
             f"the ablation from what is left{time}{wall}"]
    lines.append(f"confirmation: smallest gain it can show at {noise}: {gain:+.1%}" if gain is not None else
                 "confirmation: too few runs for 2 rounds: it can show no gain (raise budget.trials or "
                 "objective.confirm.runs)")
    return lines

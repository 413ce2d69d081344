"""Campaigns: the campaign file, the Optuna study, the loop, the summary."""

from autotune.campaign._config import Budget, Campaign, Objective, load_campaign, parse_campaign
from autotune.campaign._digest import Counts, best_ran, counts, ran_median, rdb, recent, trials_in
from autotune.campaign._loop import CampaignLoop, LoopResult, run_campaign
from autotune.campaign._preflight import preflight
from autotune.campaign._report import hints_text, summary, summary_text
from autotune.campaign._resume import in_space
from autotune.campaign._runtime import Runtime
from autotune.campaign._stack import StackReport, check_stack, ignored_hints
from autotune.campaign._study import (
    best_trial,
    default_trial,
    implausible_trials,
    make_storage,
    open_study,
    ran_trials,
    value_flag,
)
from autotune.campaign._trial import TrialOutcome, run_trial

__all__ = [
    "Budget",
    "Campaign",
    "CampaignLoop",
    "Counts",
    "LoopResult",
    "Objective",
    "Runtime",
    "StackReport",
    "TrialOutcome",
    "best_ran",
    "best_trial",
    "check_stack",
    "counts",
    "default_trial",
    "hints_text",
    "ignored_hints",
    "implausible_trials",
    "in_space",
    "load_campaign",
    "make_storage",
    "open_study",
    "parse_campaign",
    "preflight",
    "ran_median",
    "ran_trials",
    "rdb",
    "recent",
    "run_campaign",
    "run_trial",
    "summary",
    "summary_text",
    "trials_in",
    "value_flag",
]

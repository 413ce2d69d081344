"""Campaigns, in four parts (one folder each; their modules are private, their public names are these):

- ``file``: the campaign file, parsed and validated into a ``Campaign`` (values, study names, the cost objective);
- ``study``: the study record: the Optuna study and the stores it lives in, bounded reads, resume, the
  objectives' values, the end-of-campaign summary, the model fitted to its measured trials;
- ``run``: the run loop: the campaign bound to its target (``Runtime``), trials and their repetitions,
  re-measurement, the persistent DataWarp reservation;
- ``verify``: ``check`` and ``tune --dry-run``, the stack and the launcher's preflight, the baseline, the
  confirmation of the recommendation.
"""

from autotune.campaign.check._check import CheckReport, format_check, parse_config_overrides, run_check, what_it_gets
from autotune.campaign.check._dryrun import Proposal, dry_run_confirmation_lines, proposals
from autotune.campaign.check._stack import StackReport, check_stack, ignored_hints
from autotune.campaign.confirm._recommend import recommended_config, shown_not_in_effect
from autotune.campaign.file._config import Budget, Campaign, Objective, load_campaign, parse_campaign
from autotune.campaign.file._cost import CostObjective, CostParts, Point, pareto, rate_value, recommend, within_value
from autotune.campaign.file._names import check_study_name
from autotune.campaign.file._values import nonempty_path, storage_url, tracking_uri, workdir_path
from autotune.campaign.file._values import repeats as repeats_value
from autotune.campaign.file._values import trials as trials_value
from autotune.campaign.run._loop import CampaignLoop, LoopResult, run_campaign
from autotune.campaign.run._preflight import pending_lines, preflight
from autotune.campaign.run._report import confirmation_lines, fmt_value, hints_text, summary, summary_text
from autotune.campaign.study._advise import Advice, advise, heldout_errors
from autotune.campaign.study._digest import Counts, best_ran, counts, ran_median, rdb, recent, trials_in
from autotune.campaign.study._modelfit import SiteFit, fit_campaigns
from autotune.campaign.study._objectives import points, value_of, worst_values
from autotune.campaign.study._resume import in_space
from autotune.campaign.study._stores import nothing_left_on_failure, prepare_stores
from autotune.campaign.study._study import (
    best_trial,
    default_trial,
    implausible_trials,
    make_storage,
    open_study,
    ran_trials,
    value_flag,
)
from autotune.campaign.trial._baseline import baseline_config
from autotune.campaign.trial._reach import unreachable
from autotune.campaign.trial._reservation import reservation_job
from autotune.campaign.trial._runtime import Runtime
from autotune.campaign.trial._trial import TrialOutcome, run_trial

__all__ = [
    "Advice",
    "Budget",
    "Campaign",
    "CampaignLoop",
    "CheckReport",
    "CostObjective",
    "CostParts",
    "Counts",
    "LoopResult",
    "Objective",
    "Point",
    "Proposal",
    "Runtime",
    "SiteFit",
    "StackReport",
    "TrialOutcome",
    "advise",
    "baseline_config",
    "best_ran",
    "best_trial",
    "check_stack",
    "check_study_name",
    "confirmation_lines",
    "counts",
    "default_trial",
    "dry_run_confirmation_lines",
    "fit_campaigns",
    "fmt_value",
    "format_check",
    "heldout_errors",
    "hints_text",
    "ignored_hints",
    "implausible_trials",
    "in_space",
    "load_campaign",
    "make_storage",
    "nonempty_path",
    "nothing_left_on_failure",
    "open_study",
    "pareto",
    "parse_campaign",
    "parse_config_overrides",
    "pending_lines",
    "points",
    "preflight",
    "prepare_stores",
    "proposals",
    "ran_median",
    "ran_trials",
    "rate_value",
    "rdb",
    "recent",
    "recommend",
    "recommended_config",
    "repeats_value",
    "reservation_job",
    "run_campaign",
    "run_check",
    "run_trial",
    "shown_not_in_effect",
    "storage_url",
    "summary",
    "summary_text",
    "tracking_uri",
    "trials_in",
    "trials_value",
    "unreachable",
    "value_flag",
    "value_of",
    "what_it_gets",
    "within_value",
    "workdir_path",
    "worst_values",
]

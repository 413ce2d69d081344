"""The study record: the Optuna study and its stores, bounded reads, resume, the objectives' values, the model
fitted to a study's measured trials.

Its face: the names the layers above use (its modules are private); ``autotune.campaign``
re-exports the public ones."""

from autotune.campaign.study._advise import Advice, advise, heldout_errors
from autotune.campaign.study._digest import Counts, best_ran, counts, first_flagged, ran_median, rdb, recent, trials_in
from autotune.campaign.study._modelfit import SiteFit, fit_campaigns
from autotune.campaign.study._objectives import front, is_multi, points, value_of, worst_values
from autotune.campaign.study._resume import (
    DUPLICATE,
    check_choices,
    check_identity,
    completed_configs,
    drop_queued_outside,
    feasible_count,
    in_space,
    record_space,
    settle_unneeded,
)
from autotune.campaign.study._stores import (
    STARTED_NAME,
    backfill_tracker,
    check_sqlite,
    nothing_left_on_failure,
    prepare_stores,
    stop_cleanly,
)
from autotune.campaign.study._study import (
    best_trial,
    data_in_use,
    default_trial,
    heartbeat,
    implausible_trials,
    interrupt,
    make_storage,
    open_study,
    pid_alive,
    ran_trials,
    recover_interrupted,
    rule_trials,
    value_flag,
)
from autotune.campaign.study._untried import nearest_untried

__all__ = [
    "DUPLICATE",
    "STARTED_NAME",
    "Advice",
    "Counts",
    "SiteFit",
    "advise",
    "backfill_tracker",
    "best_ran",
    "best_trial",
    "check_choices",
    "check_identity",
    "check_sqlite",
    "completed_configs",
    "counts",
    "data_in_use",
    "default_trial",
    "drop_queued_outside",
    "feasible_count",
    "first_flagged",
    "fit_campaigns",
    "front",
    "heartbeat",
    "heldout_errors",
    "implausible_trials",
    "in_space",
    "interrupt",
    "is_multi",
    "make_storage",
    "nearest_untried",
    "nothing_left_on_failure",
    "open_study",
    "pid_alive",
    "points",
    "prepare_stores",
    "ran_median",
    "ran_trials",
    "rdb",
    "recent",
    "record_space",
    "recover_interrupted",
    "rule_trials",
    "settle_unneeded",
    "stop_cleanly",
    "trials_in",
    "value_flag",
    "value_of",
    "worst_values",
]

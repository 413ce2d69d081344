"""The campaign file, parsed and validated into a ``Campaign`` (values, study names, the cost objective, the
persistent reservation's keys).

Its face: the names the layers above use (its modules are private); ``autotune.campaign``
re-exports the public ones."""

from autotune.campaign.file._config import Budget, Campaign, Objective, load_campaign, parse_campaign
from autotune.campaign.file._cost import CostObjective, CostParts, Point, pareto, rate_value, recommend, within_value
from autotune.campaign.file._names import REMEASURE_BASE, check_study_name, clean_stale_data, data_dir_name, data_dir_re
from autotune.campaign.file._values import nonempty_path, repeats, storage_url, tracking_uri, trials, workdir_path

__all__ = [
    "REMEASURE_BASE",
    "Budget",
    "Campaign",
    "CostObjective",
    "CostParts",
    "Objective",
    "Point",
    "check_study_name",
    "clean_stale_data",
    "data_dir_name",
    "data_dir_re",
    "load_campaign",
    "nonempty_path",
    "pareto",
    "parse_campaign",
    "rate_value",
    "recommend",
    "repeats",
    "storage_url",
    "tracking_uri",
    "trials",
    "within_value",
    "workdir_path",
]

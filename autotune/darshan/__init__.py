"""Darshan logs as a starting point: read a job's log (PyDarshan), derive its ``app.pattern``, the target
(or a draft site profile from the log) and the settings it ran with, diagnose its headroom with the model,
and read a run's log as a metric."""

from autotune.darshan._campaign import CampaignFromLog, campaign_from_log, preset_for
from autotune.darshan._diagnose import Finding, diagnose
from autotune.darshan._draft import Draft, draft_site
from autotune.darshan._log import JobLog, read_log
from autotune.darshan._pattern import Derived, FileFigures, derive, file_figures, files_that_matter
from autotune.darshan._target import Target, choose_target, job_settings

__all__ = [
    "CampaignFromLog", "Derived", "Draft", "FileFigures", "Finding", "JobLog", "Target", "campaign_from_log",
    "choose_target", "derive", "diagnose", "draft_site", "file_figures", "files_that_matter", "job_settings", "preset_for",
    "read_log",
]

"""The run loop: the steps of a trial, what it tells the study, re-measurement, the launcher's preflight, the
end-of-campaign summary, what ``status``, ``export`` and ``space`` print.

Its face: the names the layers above use (its modules are private); ``autotune.campaign``
re-exports the public ones."""

from autotune.campaign.run._loop import CampaignLoop, LoopResult, run_campaign
from autotune.campaign.run._preflight import pending_lines, preflight
from autotune.campaign.run._report import confirmation_lines, fmt_value, hints_text, summary, summary_text
from autotune.campaign.run._status import export_claim, space_text, status_text

__all__ = [
    "CampaignLoop",
    "LoopResult",
    "confirmation_lines",
    "export_claim",
    "fmt_value",
    "hints_text",
    "pending_lines",
    "preflight",
    "run_campaign",
    "space_text",
    "status_text",
    "summary",
    "summary_text",
]

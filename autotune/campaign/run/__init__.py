"""The run loop: the campaign bound to its target, trials and their repetitions, re-measurement, the reservation.

The public names are re-exported by ``autotune.campaign``.

Its face: what the layers above use (its modules are private)."""

from autotune.campaign.run._loop import CampaignLoop, LoopResult, run_campaign
from autotune.campaign.run._preflight import pending_lines, preflight
from autotune.campaign.run._report import confirmation_lines, fmt_value, hints_text, summary, summary_text

__all__ = [
    "CampaignLoop",
    "LoopResult",
    "confirmation_lines",
    "fmt_value",
    "hints_text",
    "pending_lines",
    "preflight",
    "run_campaign",
    "summary",
    "summary_text",
]

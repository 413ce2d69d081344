"""The confirmation of the recommendation: paired runs against the default, their budget, the claim on the
study that one worker confirms.

Its face: the names the layers above use (its modules are private); ``autotune.campaign``
re-exports the public ones."""

from autotune.campaign.confirm._budget import confirmation_reserve, dry_run_lines
from autotune.campaign.confirm._claim import confirming_worker, in_use
from autotune.campaign.confirm._recommend import confirm_campaign, recommended_config, shown_not_in_effect
from autotune.campaign.confirm._record import Confirmation

__all__ = [
    "Confirmation",
    "confirm_campaign",
    "confirmation_reserve",
    "confirming_worker",
    "dry_run_lines",
    "in_use",
    "recommended_config",
    "shown_not_in_effect",
]

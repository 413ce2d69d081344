"""The confirmation of the recommendation: paired runs against the default, their budget, the claim on the
study that one worker confirms.

Its face: the names the layers above use (its modules are private), and the sequential test itself (``confirm``,
``top_physical``, ``pooled_history``) for the confirmation's evaluation; ``autotune.campaign`` re-exports the public
ones."""

from autotune.campaign.confirm._budget import confirmation_reserve, dry_run_lines
from autotune.campaign.confirm._claim import confirming_worker, in_use
from autotune.campaign.confirm._recommend import (
    confirm_campaign,
    pooled_history,
    recommended_config,
    shown_not_in_effect,
    top_physical,
)
from autotune.campaign.confirm._record import Confirmation
from autotune.campaign.confirm._sequential import CONFIRM_BASE, TOP, confirm

__all__ = [
    "CONFIRM_BASE",
    "TOP",
    "Confirmation",
    "confirm",
    "confirm_campaign",
    "confirmation_reserve",
    "confirming_worker",
    "dry_run_lines",
    "in_use",
    "pooled_history",
    "recommended_config",
    "shown_not_in_effect",
    "top_physical",
]

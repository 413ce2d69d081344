"""Trackers: observers of campaigns (MLflow) and the end-of-run notification hook (``notify``); the Optuna storage
stays the source of truth."""

from autotune.tracking._base import (
    DEFAULT_TRACKER,
    TRACKERS,
    BaseTracker,
    CampaignInfo,
    NullTracker,
    SafeTracker,
    TrackedTrial,
    active_tracker,
    campaign_tracker,
    get_tracker,
)
from autotune.tracking._notify import check_notify, notify, parse_notify

__all__ = [
    "DEFAULT_TRACKER", "TRACKERS", "BaseTracker", "CampaignInfo", "NullTracker", "SafeTracker", "TrackedTrial",
    "active_tracker", "campaign_tracker", "check_notify", "get_tracker", "notify", "parse_notify",
]

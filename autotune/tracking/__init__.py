"""Trackers: observers of campaigns (MLflow); the Optuna storage stays the source of truth."""

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

__all__ = [
    "DEFAULT_TRACKER", "TRACKERS", "BaseTracker", "CampaignInfo", "NullTracker", "SafeTracker", "TrackedTrial",
    "active_tracker", "campaign_tracker", "get_tracker",
]

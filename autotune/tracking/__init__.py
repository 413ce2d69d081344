"""Trackers: observers of campaigns (MLflow); the Optuna storage stays the source of truth."""

from autotune.tracking._base import TRACKERS, BaseTracker, CampaignInfo, NullTracker, SafeTracker, TrialRecord, get_tracker

__all__ = ["TRACKERS", "BaseTracker", "CampaignInfo", "NullTracker", "SafeTracker", "TrialRecord", "get_tracker"]

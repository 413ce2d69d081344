"""Measurements: records from benchmark runs and what they say about the hints in effect."""

from autotune.measure._verify import count_aggregators, verify_hints

__all__ = ["count_aggregators", "verify_hints"]

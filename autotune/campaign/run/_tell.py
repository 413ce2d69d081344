"""What a finished trial tells the study: its metric, and with ``objective.cost`` the cost of one run."""

from __future__ import annotations

from typing import Any

from autotune.campaign.file import Campaign, CostParts
from autotune.campaign.trial import TrialOutcome
from autotune.measure import aggregate
from autotune.tiers import DATAWARP


def cost_parts(c: Campaign, outcome: TrialOutcome, bb_default: Any = None) -> CostParts | None:
    """The I/O time of one run of ``outcome``'s configuration and the nodes it holds (None: it failed)."""
    if outcome.value is None:
        return None
    if c.objective.kind == "time":
        seconds = float(outcome.value)
    else:  # a bandwidth or score: the run's time, aggregated as the metric is (objective.aggregate; best: the fastest)
        secs = [float(m["seconds"]) if "seconds" in m else float(info.get("wall_s", 0.0))
                for v, m, info in zip(outcome.repetitions, outcome.metrics, outcome.run_info, strict=False)
                if v is not None]
        if not secs:
            return None
        seconds = aggregate(secs, c.objective.aggregate, maximize=False)
    bb = 0
    if c.fs.tier is DATAWARP:
        bb = int(outcome.config.get("bb.nodes", bb_default if bb_default is not None else 1))
    return CostParts(seconds, c.app.pattern.nodes, bb)


def told_values(c: Campaign, outcome: TrialOutcome, parts: CostParts | None) -> float | list[float]:
    """What ``study.tell`` gets for a completed trial: the metric, and the cost with ``objective.cost``."""
    assert outcome.value is not None
    if c.objective.cost is None:
        return float(outcome.value)
    assert parts is not None
    return [float(outcome.value), parts.cost(c.objective.cost.exchange_rate)]

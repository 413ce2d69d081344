"""Tuner overhead per trial: everything but the benchmark runs (suggest, rules, tell, bookkeeping)."""

from __future__ import annotations

import io
import statistics
import time
from typing import Any

from autotune.campaign import CampaignLoop, Runtime, TrialOutcome
from experiments.evaluation.evalkit.run import _campaign
from experiments.evaluation.evalkit.scenarios import Scenario


def measure_overhead(sc: Scenario, method: str = "autotune", trials: int = 500, seed: int = 0,
                     storage: str = ":memory:") -> dict[str, Any]:
    """Median and 90th percentile of (time between trials - launcher time) over ``trials`` trials."""
    c = _campaign(sc, method, seed, trials, f"overhead-{sc.name}", storage)
    rt = Runtime.build(c)
    launcher_s = [0.0]
    inner = rt.launcher.run_many

    def timed(requests: Any) -> Any:
        t = time.perf_counter()
        try:
            return inner(requests)
        finally:
            launcher_s[0] += time.perf_counter() - t

    rt.launcher.run_many = timed  # type: ignore[method-assign]
    per: list[float] = []
    last = [time.perf_counter(), 0.0]

    def on_trial(o: TrialOutcome) -> None:
        now = time.perf_counter()
        per.append((now - last[0]) - (launcher_s[0] - last[1]))
        last[0], last[1] = now, launcher_s[0]

    t0 = time.perf_counter()
    CampaignLoop(c, runtime=rt, out=io.StringIO(), progress=False, on_trial=on_trial).run()
    total = time.perf_counter() - t0
    tail = per[-100:]
    return {"scenario": sc.name, "method": method, "trials": len(per), "storage": storage, "tracking": "none",
            "median_ms": 1000 * statistics.median(per), "median_last_100_ms": 1000 * statistics.median(tail),
            "p90_ms": 1000 * sorted(per)[int(0.9 * (len(per) - 1))], "total_s": total,
            "launcher_s": launcher_s[0], "target_ms": 50.0}

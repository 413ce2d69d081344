"""One campaign of one method on one scenario and seed, through the normal campaign loop on the model,
scored by the noiseless model: the per-seed JSON record."""

from __future__ import annotations

import io
import tempfile
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from autotune.campaign import CampaignLoop, Runtime, TrialOutcome
from autotune.model import simulate_run
from autotune.optimize import Candidate, model_metric, remeasure
from experiments.evaluation.evalkit.methods import method_overrides
from experiments.evaluation.evalkit.scenarios import Scenario, load_scenarios, truth

CHECKPOINTS = (5, 10, 20, 40)


@dataclass(frozen=True)
class Task:
    scenario: str
    method: str
    seed: int
    trials: int = 40
    scenarios_file: str = ""
    warm_from_seed: int | None = None  # warm start from an earlier campaign (this seed) of the same scenario


def _scenario(task: Task) -> Scenario:
    found = [s for s in load_scenarios(task.scenarios_file or Path(__file__).parent / "scenarios.yaml")
             if s.name == task.scenario]
    return found[0]


def _campaign(sc: Scenario, method: str, seed: int, trials: int, study: str, storage: str = ":memory:",
              sampler_extra: dict[str, Any] | None = None) -> Any:
    over = method_overrides(method, seed, trials)
    objective = {"metric": sc.metric, "direction": sc.direction, "repeats": 3, "confirm": 0,  # scored by its own remeasure
                 **over.get("objective", {})}
    sampler = {**over["sampler"], **(sampler_extra or {})}
    return sc.campaign(objective=objective, sampler=sampler, budget={"trials": trials}, study=study, storage=storage)


def run_history(sc: Scenario, method: str, seed: int, trials: int, storage: str = ":memory:",
                study: str | None = None, sampler_extra: dict[str, Any] | None = None) -> tuple[Any, list[TrialOutcome], float]:
    """Run the campaign; returns (campaign, the outcomes in order, seconds of tuner time)."""
    c = _campaign(sc, method, seed, trials, study or f"{sc.name}-{method}-s{seed}", storage, sampler_extra)
    outcomes: list[TrialOutcome] = []
    rt = Runtime.build(c)
    t0 = time.perf_counter()
    CampaignLoop(c, runtime=rt, out=io.StringIO(), progress=False, on_trial=outcomes.append).run()
    return c, outcomes, time.perf_counter() - t0


def _bench_seconds(o: TrialOutcome) -> float:
    return float(sum(float(r.get("wall_s", 0.0)) for r in o.run_info))


def score(sc: Scenario, c: Any, outcomes: list[TrialOutcome], seed: int, trials: int) -> dict[str, Any]:
    """Regret of the recommendation after each trial count, trials and bench seconds to 95%."""
    tr = truth(sc)
    rt_space = tr.space
    adaptive = c.objective.adaptive and c.objective.remeasure > 1
    ok = [(i, o) for i, o in enumerate(outcomes) if o.ok]
    cum = np.cumsum([_bench_seconds(o) for o in outcomes]) if outcomes else np.zeros(0)
    maximize = sc.direction == "maximize"
    regret_at: list[float] = []
    extra_at: list[float] = []
    pick_at: list[Any] = []
    for k in range(1, trials + 1):
        cands = [Candidate(i, [v for v in o.repetitions if v is not None]) for i, o in ok if i < k]
        extra = [0.0]
        if not cands:
            regret_at.append(tr.regret(rt_space.default_config()))
            extra_at.append(0.0)
            pick_at.append(rt_space.default_config())
            continue
        if adaptive:
            def measure(key: int, n: int, k: int = k, extra: list[float] = extra) -> list[float]:
                vals = []
                for r in range(n):
                    rng = np.random.default_rng([zlib.crc32(c.study.encode()), seed, k, key, r])
                    rec = simulate_run(rt_space.pattern, rt_space.system, rt_space.fs.name, outcomes[key].config, rng=rng)
                    vals.append(float(rec["metrics"][sc.metric]))
                    extra[0] += float(rec["metrics"]["seconds"])
                return vals
            pick = remeasure(cands, measure, top=c.objective.remeasure, repeats=2, how=c.objective.aggregate,
                             maximize=maximize)
        else:
            pick = (max if maximize else min)(cands, key=lambda cd: float(outcomes[cd.key].value or 0.0))
        config = outcomes[pick.key].config if pick is not None else rt_space.default_config()
        regret_at.append(tr.regret(config) if pick is not None else 1.0)
        extra_at.append(extra[0])
        pick_at.append(config)
    n = len(outcomes)
    bench = [float(cum[min(k, n) - 1]) + extra_at[k - 1] if n else 0.0 for k in range(1, trials + 1)]
    hit = next((k for k in range(1, trials + 1) if regret_at[k - 1] <= 0.05), None)
    gain = bandwidth_gain(sc, rt_space, pick_at[-1], rt_space.default_config())
    return {
        "regret": {str(k): regret_at[k - 1] for k in CHECKPOINTS if k <= trials},
        "regret_curve": regret_at,
        "trials_to_95": hit,
        "bench_seconds_to_95": bench[hit - 1] if hit else None,
        "bench_seconds": bench[-1],
        "bench_seconds_curve": bench,
        "repetitions": int(sum(len(o.repetitions) for o in outcomes)),
        "bw_gain_per_tuning_minute": gain / max(bench[-1] / 60.0, 1e-9),
    }


def bandwidth_gain(sc: Scenario, space: Any, final: Any, default: Any) -> float:
    """MiB/s the recommendation gains over the default: of the metric, or for a time metric of the matching
    bandwidth (``write_seconds`` -> ``write_bandwidth_mib_s``), on the noiseless model."""
    metric = sc.metric.replace("seconds", "bandwidth_mib_s")
    final_v, default_v = model_metric(space, final, metric), model_metric(space, default, metric)
    return float(final_v or 0.0) - float(default_v or 0.0)


def run_task(task: Task) -> dict[str, Any]:
    """The per-seed JSON record of ``task`` (runs in a Ray worker)."""
    sc = _scenario(task)
    truth(sc)
    extra = None
    warm_s = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        if task.warm_from_seed is not None:
            storage = f"sqlite:///{tmp}/earlier.db"
            t0 = time.perf_counter()
            run_history(sc, "cold", task.warm_from_seed, task.trials, storage=storage, study="earlier")
            warm_s = time.perf_counter() - t0
            extra = {"warm_start": {"storage": storage, "study": "earlier", "top": 3}}
        c, outcomes, secs = run_history(sc, task.method, task.seed, task.trials, sampler_extra=extra)
    rec = {"scenario": sc.name, "method": task.method + ("+warm" if extra else ""), "seed": task.seed,
           "held_out": sc.held_out, "trials": len(outcomes), "tuner_seconds": secs, "earlier_campaign_seconds": warm_s}
    rec.update(score(sc, c, outcomes, task.seed, task.trials))
    return rec


def rule_records(sc: Scenario, seeds: list[int]) -> list[dict[str, Any]]:
    """One-shot rules of thumb: one run each, the same (noiseless) regret for every seed."""
    from experiments.evaluation.evalkit.methods import rules_of_thumb

    tr = truth(sc)
    out = []
    for name, cfg in rules_of_thumb(tr.space).items():
        reg = tr.regret(cfg)
        pred_s = float(simulate_run(tr.space.pattern, tr.space.system, tr.space.fs.name, cfg, noise=False)["metrics"]["seconds"])
        for seed in seeds:
            out.append({"scenario": sc.name, "method": name, "seed": seed, "held_out": sc.held_out, "trials": 1,
                        "regret": {str(k): reg for k in CHECKPOINTS}, "regret_curve": [reg],
                        "trials_to_95": 1 if reg <= 0.05 else None,
                        "bench_seconds_to_95": pred_s if reg <= 0.05 else None, "bench_seconds": pred_s,
                        "repetitions": 1, "config": cfg})
    return out

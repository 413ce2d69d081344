"""The confirmation replayed on this machine's recorded surfaces: 12-trial campaigns of each search method, their
confirmation drawing runs from the recording, scored against the pooled truth; and the shape of the run-to-run
noise on those surfaces (the confirmation evaluation's last two tables, ``experiments.evaluation.confirm_eval``)."""

from __future__ import annotations

import io
import math
import multiprocessing
from typing import Any

import numpy as np

from autotune import trialrecord
from autotune.campaign import CampaignLoop, Runtime, TrialOutcome
from autotune.campaign.confirm import confirm, pooled_history, top_physical
from autotune.hints import measured_phases
from autotune.launch import Recording
from experiments.evaluation.evalkit.truths import SURFACES, RealSurface, draw_key, real_surfaces


def noise_shape() -> list[dict[str, Any]]:
    """The shape of run-to-run noise on each recorded surface (quiet and loaded machine): each run's log
    deviation from its configuration's median; one-sided interference puts nearly all the mass below."""
    out = []
    for path in sorted([*SURFACES.glob("*.csv"), *(SURFACES / "loaded").glob("*.csv")]):
        devs: list[float] = []
        for runs in Recording.load(path, path.stem).runs.values():
            vals = [float(v) for v, _ in runs if v]
            if len(vals) >= 3:
                med = float(np.median(vals))
                devs += [math.log(v / med) for v in vals]
        d = np.asarray(devs)
        up, down = float(d[d > 0].sum()), float(-d[d < 0].sum())
        skew = float(np.mean((d - d.mean()) ** 3) / max(float(d.std()) ** 3, 1e-12))
        out.append({"surface": str(path.relative_to(SURFACES).with_suffix("")), "runs": int(d.size),
                    "above": up / max(up + down, 1e-12), "skew": skew, "p10": float(np.quantile(d, 0.1)),
                    "p90": float(np.quantile(d, 0.9))})
    return out


def noise_lines(rows: list[dict[str, Any]]) -> list[str]:
    out = ["", "## The shape of the noise on the recorded surfaces (node-local disk and /dev/shm, this machine)", "",
           "Each run's log deviation from its configuration's median. One-sided interference would put almost all "
           "the deviation below the median (share above near 0, strong negative skew); two-sided noise about half.", "",
           "| surface | runs | share of deviation above the median | skewness | 10th / 90th percentile |",
           "|---|---|---|---|---|"]
    out += [f"| {r['surface']} | {r['runs']} | {r['above']:.0%} | {r['skew']:+.2f} | {r['p10']:+.1%} / {r['p90']:+.1%} |"
            for r in rows]
    return out


REPLAY_METHODS = ("autotune", "random", "tpe")
_TRUTHS: dict[str, Any] = {}


def replay(name: str, method: str, seed: int, rounds: int) -> dict[str, Any]:
    """A 12-trial campaign of ``method`` on recorded surface ``name`` (replayed), then its confirmation drawing
    runs from the recording; scored against the pooled truth (each physical configuration's median run)."""
    tr = _TRUTHS.setdefault(name, RealSurface(name))
    c = tr.campaign(method, seed, 12)
    outcomes: list[TrialOutcome] = []
    res = CampaignLoop(c, runtime=Runtime.build(c), out=io.StringIO(), progress=False, on_trial=outcomes.append).run()
    rules = {t.number: trialrecord.read(t).rule_of_thumb for t in res.study.get_trials(deepcopy=False)
             if trialrecord.read(t).rule_of_thumb}
    default = tr.space.default_config()
    phases = measured_phases(c.objective.metric, c.app.pattern.phases)
    ok = [o for o in outcomes if o.ok]
    runs = [(-1 if o.is_default else o.number, default if o.is_default else o.config, list(o.repetitions))
            for o in ok]
    ranked = sorted((o for o in ok if not o.is_default), key=lambda o: -float(o.value or 0.0))
    top = top_physical([(o.number, o.config) for o in ranked], default, phases)
    # the best rule of thumb the campaign ran, a comparator and the fallback (``confirm_campaign``'s ``best_rule``)
    rule = next(((o.number, o.config, rules[o.number]) for o in ranked if o.number in rules), None)
    compared = top + ([(rule[0], rule[1])] if rule is not None and rule[0] not in [n for n, _ in top] else [])

    def measure(config: dict[str, Any], is_default: bool, number: int) -> float:
        return tr.draw(config, draw_key(c.study, seed, 24, number))[0]

    conf = confirm(default, top, rounds, measure, True, phases, history=pooled_history(runs, default, compared, phases),
                   aggregate=c.objective.aggregate, rule=rule)
    base = tr.physical_medians[tr.physical(default)]
    win = next(x for x in conf.candidates if x["label"] == conf.winner)["config"]
    true_margin = tr.physical_medians.get(tr.physical(win), 0.0) / base - 1
    rec = tr.physical_medians.get(tr.physical({**default, **conf.recommended}), 0.0) / base - 1
    return {"surface": name, "method": method, "seed": seed, "decision": conf.decision,
            "possible": tr.physical_optimum / base - 1,
            "recommended_true_gain": rec, "changed": bool(conf.recommended), "margin": conf.margin, "low": conf.low,
            "high": conf.high, "true_margin": true_margin, "covers": conf.low <= true_margin <= conf.high,
            "rounds": conf.rounds, "runs": sum(sum(v is not None for v in x["values"]) for x in conf.candidates),
            "recommends_rule": conf.recommends_rule}


def replays(seeds: int, rounds: int, workers: int, first: int = 0) -> list[dict[str, Any]]:
    tasks = [(n, m, s, rounds) for n in real_surfaces() for m in REPLAY_METHODS for s in range(first, first + seeds)]
    if workers > 1:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            return pool.starmap(replay, tasks)
    return [replay(*t) for t in tasks]


def replay_lines(recs: list[dict[str, Any]], rounds: int) -> list[str]:
    out = ["", "## Replays of the recorded surfaces (12-trial campaigns: " + ", ".join(REPLAY_METHODS) + ")", "",
           "Truth: each physical configuration's median over all its recorded runs (twins pooled); "
           f"the confirmation draws runs from the recording (budget: {rounds} rounds).", "",
           "| surface | best possible gain | recommended a change | the change is better (truth) | "
           "harmful change (truth < -1%) | of the changes, the rule of thumb | interval covers the true margin | "
           "median rounds |",
           "|---|---|---|---|---|---|---|---|"]
    for name in sorted({r["surface"] for r in recs}):
        rs = [r for r in recs if r["surface"] == name]
        ch = [r for r in rs if r["changed"]]
        out.append(f"| {name} | {rs[0]['possible']:+.1%} | {len(ch)}/{len(rs)} | "
                   f"{sum(r['recommended_true_gain'] > 0 for r in ch)}/{len(ch)} | "
                   f"{sum(r['recommended_true_gain'] < -0.01 for r in ch)}/{len(ch)} | "
                   f"{sum(bool(r.get('recommends_rule')) for r in ch)}/{len(ch)} | {_share(rs, 'covers')} | "
                   f"{np.median([r['rounds'] for r in rs]):.0f} |")
    out.append(f"| all | | {sum(r['changed'] for r in recs)}/{len(recs)} | "
               f"{sum(r['changed'] and r['recommended_true_gain'] > 0 for r in recs)}/{sum(r['changed'] for r in recs)} | "
               f"{sum(r['changed'] and r['recommended_true_gain'] < -0.01 for r in recs)}/{sum(r['changed'] for r in recs)} | "
               f"{sum(bool(r.get('recommends_rule')) for r in recs)}/{sum(r['changed'] for r in recs)} | "
               f"{_share(recs, 'covers')} | {np.median([r['rounds'] for r in recs]):.0f} |")
    return out


def _rate(recs: list[dict[str, Any]], key: str, value: Any = True) -> str:
    return f"{sum(r[key] == value for r in recs)}/{len(recs)}"


def _share(recs: list[dict[str, Any]], key: str) -> str:
    return f"{sum(bool(r[key]) for r in recs)}/{len(recs)}"

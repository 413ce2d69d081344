"""The search on truths the model did not write: real measured surfaces (replayed) and structural variants.

    python -m experiments.evaluation.surface_eval --out experiments/evaluation/results/surface_eval.json  # 20 seeds, 20 trials
    python -m experiments.evaluation.surface_eval --seeds 3 --truths vpic-disk --out /tmp/s.json           # a quick look

Every method runs whole campaigns (the normal campaign loop; ``launcher: replay`` on the recorded sweeps of
experiments/evaluation/surfaces/, ``launcher: variant`` on the structural variants of
experiments/evaluation/evalkit/structural.py),
side by side, and is scored by the regret of the configuration it RECOMMENDS after k trials against the
noiseless truth (a recorded configuration's median; the variant's noiseless prediction). ``model-first``
is the model's top-ranked configuration alone (one run); ``refit`` is ``autotune`` with the model in the loop
(``sampler.prior.refit``), ``cold`` is ``autotune`` without the model (TPE and pattern search).

    python -m experiments.evaluation.surface_eval --methods refit autotune cold tpe --trials 30 --seeds 20 \
        --out experiments/evaluation/results/model_in_loop.json      # the model in the loop against a fixed model and none
"""

from __future__ import annotations

import argparse
import io
import multiprocessing
import os
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from autotune.campaign import CampaignLoop, Runtime, TrialOutcome
from autotune.campaign.confirm import TOP, confirm
from autotune.optimize import Candidate, model_metric_of, model_ranked, recommend, remeasure
from experiments.evaluation.evalkit.bias import gain_record
from experiments.evaluation.evalkit.methods import SEARCH, gp_available
from experiments.evaluation.evalkit.truths import STRUCTURAL, SurfaceTruth, draw_key, load_truth, real_surfaces

CHECKPOINTS = (5, 10, 20)
CONFIRM_ROUNDS = 3  # as a campaign's default objective.confirm
METHODS = (*SEARCH, "model-first", "refit", "cold")
POOLED = "-pool"  # METHOD-pool: METHOD's campaigns, recommending with twins' repetitions pooled
_TRUTHS: dict[str, SurfaceTruth] = {}


def truth(name: str) -> SurfaceTruth:
    if name not in _TRUTHS:
        _TRUTHS[name] = load_truth(name)
    return _TRUTHS[name]


def recommended(tr: SurfaceTruth, c: Any, outcomes: list[TrialOutcome], seed: int, k: int,
                pooled: bool = False) -> tuple[Any, float]:
    """What the campaign recommends after ``k`` trials, and the extra benchmark seconds that took. ``pooled``:
    the repetitions of trials that are one physical configuration (``SurfaceTruth.physical``) are pooled."""
    ok = [(i, o) for i, o in enumerate(outcomes[:k]) if o.ok]
    if not ok:
        return tr.space.default_config(), 0.0
    if c.objective.adaptive and c.objective.remeasure > 1:
        extra = [0.0]

        def measure(key: int, n: int) -> list[float]:
            vals = []
            for r in range(n):
                v, s = tr.draw(outcomes[key].config, draw_key(c.study, seed, k, key, r))
                vals.append(v)
                extra[0] += s
            return vals
        cands = _pooled(tr, outcomes, ok) if pooled else [Candidate(i, _ok(o)) for i, o in ok]
        pick = remeasure(cands, measure, top=c.objective.remeasure, repeats=2, how=c.objective.aggregate)
        return outcomes[pick.key if pick else ok[0][0]].config, extra[0]
    if pooled:
        best = recommend(_pooled(tr, outcomes, ok), c.objective.aggregate, True)
        return outcomes[best.key if best else ok[0][0]].config, 0.0
    i, _ = max(ok, key=lambda t: float(t[1].value or 0.0))
    return outcomes[i].config, 0.0


def _ok(o: TrialOutcome) -> list[float]:
    return [v for v in o.repetitions if v is not None]


def _pooled(tr: SurfaceTruth, outcomes: list[TrialOutcome], ok: list[tuple[int, TrialOutcome]]) -> list[Candidate]:
    """One candidate per physical configuration (twins: ``SurfaceTruth.physical``): the first trial's key with the
    repetitions of all its twins (``METHOD-pool``; tried and not adopted: docs/evaluation/real-surfaces.md)."""
    groups: dict[str, Candidate] = {}
    for i, o in ok:
        groups.setdefault(tr.physical(o.config), Candidate(i, [])).values.extend(_ok(o))
    return list(groups.values())


def run_task(task: tuple[str, str, int, int]) -> dict[str, Any]:
    """One campaign of ``method`` on ``truth`` with ``seed``: its regret and benchmark-time record."""
    name, method, seed, trials = task
    tr = truth(name)
    rec: dict[str, Any] = {"truth": name, "kind": tr.kind, "method": method, "seed": seed}
    if method == "model-first":
        c = tr.campaign("autotune", seed, 1)
        cfg = model_ranked(tr.space, model_metric_of(c, tr.space) or c.objective.metric, True, 1)[0]
        reg, secs = tr.regret(cfg), tr.seconds(cfg)
        rec.update(regret={str(k): reg for k in CHECKPOINTS if k <= trials}, regret_curve=[reg] * trials,
                   trials_to_95=1 if reg <= 0.05 else None, bench_seconds_to_95=secs if reg <= 0.05 else None,
                   bench_seconds=secs, config=cfg)
        if tr.kind == "real":
            one = tr.physical_regret(cfg)
            rec.update(physical_regret={str(k): one for k in CHECKPOINTS if k <= trials},
                       physical_trials_to_95=1 if one <= 0.05 else None)
        return rec
    search, pooled = (method.removesuffix(POOLED), True) if method.endswith(POOLED) else (method, False)
    c = tr.campaign(search, seed, trials)  # METHOD-pool: METHOD's very campaign (the same runs), pooled recommendation
    outcomes: list[TrialOutcome] = []
    t0 = time.perf_counter()
    res = CampaignLoop(c, runtime=Runtime.build(c), out=io.StringIO(), progress=False, on_trial=outcomes.append).run()
    rec["tuner_seconds"] = round(time.perf_counter() - t0, 2)
    prior = c.sampler.get("prior")
    if isinstance(prior, dict) and prior.get("refit"):
        rec["loop"] = loop_record(res.study)
    cum = np.cumsum([sum(float(r.get("wall_s", 0.0)) for r in o.run_info) for o in outcomes]) if outcomes else [0.0]
    curve: list[float] = []
    bench: list[float] = []
    phys: list[float] = []
    for k in range(1, trials + 1):
        cfg, extra = recommended(tr, c, outcomes, seed, k, pooled)
        curve.append(tr.regret(cfg))
        phys.append(tr.physical_regret(cfg))
        bench.append(float(cum[min(k, len(outcomes)) - 1]) + extra)
    hit = next((k for k in range(1, trials + 1) if curve[k - 1] <= 0.05), None)
    rec.update(regret={str(k): curve[k - 1] for k in CHECKPOINTS if k <= trials}, regret_curve=curve,
               trials_to_95=hit, bench_seconds_to_95=bench[hit - 1] if hit else None, bench_seconds=bench[-1],
               repetitions=sum(len(o.repetitions) for o in outcomes))
    confirmed = {str(k): confirmed_pick(tr, c.study, seed, outcomes[:k]) for k in CHECKPOINTS if k <= trials}
    rec["confirmed_regret"] = {k: tr.regret(cfg) for k, (cfg, _) in confirmed.items()}
    rec["confirmed_extra_seconds"] = {k: secs for k, (_, secs) in confirmed.items()}
    if tr.kind == "real":
        rec["gain"] = gain_record(tr, c.study, seed, outcomes, CONFIRM_ROUNDS, c.objective.aggregate)
        rec["physical_regret"] = {str(k): phys[k - 1] for k in CHECKPOINTS if k <= trials}
        rec["physical_trials_to_95"] = next((k for k in range(1, trials + 1) if phys[k - 1] <= 0.05), None)
    return rec


def loop_record(study: Any) -> dict[str, Any]:
    """The model in the loop, as its trials recorded it: who proposed each trial, the model's share and rho at
    the end, and the constants that moved (relative change) in the last trial."""
    trials = sorted((t for t in study.get_trials(deepcopy=False) if t.user_attrs.get("ran")), key=lambda t: t.number)
    last = trials[-1].user_attrs if trials else {}
    return {"proposed_by": [t.user_attrs.get("proposed_by", "enqueued") for t in trials],
            "share": last.get("model_share"), "rho": last.get("model_rho"), "moved": last.get("model_moved", {})}


def confirmed_pick(tr: SurfaceTruth, study: str, seed: int, outcomes: list[TrialOutcome]) -> tuple[Any, float]:
    """What the campaign exports after these trials: its confirmation's (3 rounds, ablation) settings applied
    to the default, and the benchmark seconds the confirmation took."""
    default = tr.space.default_config()
    done = sorted((o for o in outcomes if o.ok and not o.is_default), key=lambda o: float(o.value or 0.0), reverse=True)
    top: list[tuple[int, Any]] = []
    for o in done:
        if all(o.config != cfg for _, cfg in top):
            top.append((o.number, o.config))
        if len(top) == TOP:
            break
    if not top:
        return default, 0.0
    secs = [0.0]

    def measure(config: Any, is_default: bool, number: int) -> float:
        v, s = tr.draw(config, draw_key(study, seed, 11, len(outcomes), number))
        secs[0] += s
        return v

    conf = confirm(default, top, CONFIRM_ROUNDS, measure, True)
    return {**default, **conf.recommended}, secs[0]


def _args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m experiments.evaluation.surface_eval", description=__doc__.split("\n")[0])
    p.add_argument("--out", default="surface_eval.json")
    p.add_argument("--seeds", type=int, default=20)
    p.add_argument("--trials", type=int, default=20)
    p.add_argument("--truths", nargs="*", help="surface names and SCENARIO~VARIANT (default: all)")
    p.add_argument("--methods", nargs="*", help=f"default: {' '.join(METHODS)}")
    p.add_argument("--gp-seeds", type=int, help="seeds for gp (default: --seeds; ~45 s per campaign here)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--render", action="store_true", help="only write the Markdown again from OUT")
    p.add_argument("--merge", help="add the truths and records of an earlier run's JSON (other truths)")
    p.add_argument("--no-curves", action="store_true",
                   help="store no per-trial regret curves (no table reads them; the JSON is ~25%% smaller)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    from experiments.evaluation.evalkit import store
    from experiments.evaluation.evalkit.surface_report import markdown

    a = _args(argv)
    out = Path(a.out)
    if a.render:
        out.with_suffix(".md").write_text(markdown(store.load(out)))
        return 0
    started = time.monotonic()
    names = a.truths or [*real_surfaces(), *(f"{s}~{v}" for s, v in STRUCTURAL)]
    methods = list(a.methods or METHODS)
    notes = []
    if "gp" in methods and not gp_available():
        methods.remove("gp")
        notes.append("gp: not run, PyTorch is not installed")
    truths = []
    for n in names:
        truths.append(truth(n).summary())
        print(f"{n}: optimum {truths[-1]['optimum']:.4g} at {truths[-1]['optimum_config']}", file=sys.stderr)
    gp_seeds = a.seeds if a.gp_seeds is None else a.gp_seeds
    if "gp" in methods and gp_seeds < a.seeds:
        notes.append(f"gp: {gp_seeds} seeds only (~45 s per campaign here; --gp-seeds)")
    tasks = [(n, m, s, a.trials) for n in names for m in methods for s in range(gp_seeds if m == "gp" else a.seeds)]
    tasks.sort(key=lambda t: t[1] != "gp")  # slow ones first
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    records: list[dict[str, Any]] = []
    with multiprocessing.get_context("fork").Pool(a.workers) as pool:
        for i, rec in enumerate(pool.imap_unordered(run_task, tasks, chunksize=1), 1):
            records.append(rec)
            if i % max(1, len(tasks) // 20) == 0 or i == len(tasks):
                print(f"{i}/{len(tasks)} campaigns {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
    command = shlex.join(["python", "-m", "experiments.evaluation.surface_eval", *(argv or sys.argv[1:])])
    if a.merge:
        earlier = store.load(Path(a.merge))
        truths += earlier["truths"]
        records += earlier["records"]
        notes.append(f"merged from an earlier run: {', '.join(t['truth'] for t in earlier['truths'])} "
                     f"(`{earlier['meta']['command']}`, {earlier['meta']['seconds']:.0f} s; notes: "
                     f"{'; '.join(earlier['meta'].get('notes', [])) or 'none'})")
    if a.no_curves:
        records = [{k: v for k, v in r.items() if k != "regret_curve"} for r in records]
    data = {"meta": {"command": command,
                     "seeds": a.seeds, "gp_seeds": gp_seeds, "trials": a.trials, "methods": methods, "notes": notes,
                     "seconds": round(time.monotonic() - started, 1)},
            "truths": truths, "records": sorted(records, key=lambda r: (r["truth"], r["method"], r["seed"]))}
    out.parent.mkdir(parents=True, exist_ok=True)
    data = _rounded(data)  # the tables from what is committed, so --render reproduces them
    store.save(out, data)  # OUT (meta, truths) and OUT's stem + .records.parquet
    out.with_suffix(".md").write_text(markdown(data))
    print(f"wrote {out} and {out.with_suffix('.md')} in {time.monotonic() - started:.0f} s", file=sys.stderr)
    return 0


def _rounded(obj: Any) -> Any:
    """Floats to 4 significant digits: the committed records stay small."""
    if isinstance(obj, float):
        return float(f"{obj:.4g}")
    if isinstance(obj, dict):
        return {k: _rounded(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_rounded(v) for v in obj]
    return obj


if __name__ == "__main__":
    sys.exit(main())

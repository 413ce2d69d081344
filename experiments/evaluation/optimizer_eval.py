"""The optimizer evaluation: whole campaigns against the performance model (noise on, seeded), on Ray.

    python -m experiments.evaluation.optimizer_eval --quick --out results.json          # < 15 min here
    python -m experiments.evaluation.optimizer_eval --out experiments/evaluation/results/optimizer_eval.json   # the full run

Methods: ``autotune`` (our default: model-informed start, TPE with pattern-search moves, adaptive best-of-3
with re-measurement),
``tpe``, ``gp`` (needs PyTorch), ``cmaes``, ``random``, ``ga`` (H5Tuner-style) with fixed best-of-3, and
the rules of thumb as one-shot baselines. Studies: ``cold`` (autotune without the model start),
``miscal`` (model start from constants off by 2x), ``cold-n1/n3/n5`` (fixed best-of-N, no model start),
``cold+warm`` (warm start from an earlier campaign of the same app on the same system), ``cold-gp`` (no
model start, a GP instead of TPE for the first 60 trials: ``sampler.options.gp_trials``; not in --quick); on request
(``--methods``) ``refit`` and ``miscal-refit`` (the same with the model in the loop: ``sampler.prior.refit``). Each campaign is
one Ray task (``--address`` for a cluster); the records are per scenario x method x seed.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from autotune.errors import AutotuneError
from experiments.evaluation.evalkit.methods import SEARCH, gp_available
from experiments.evaluation.evalkit.report import markdown, optimum_text, plots
from experiments.evaluation.evalkit.run import Task, rule_records, run_task
from experiments.evaluation.evalkit.scenarios import SCENARIOS, Scenario, load_scenarios, truth

STUDIES = ("cold", "miscal", "cold-n1", "cold-n3", "cold-n5", "cold-gp")
SLOW = ("gp", "cold-gp")  # GPSampler: ~10-15 s per 40-trial campaign here (the others < 1 s)


def _args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m experiments.evaluation.optimizer_eval", description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="3 seeds, 300-trial overhead measurement")
    p.add_argument("--out", default="results.json", help="the JSON records (Markdown and PNGs next to it)")
    p.add_argument("--seeds", type=int, help="seeds per scenario and method (default 20; --quick 3)")
    p.add_argument("--trials", type=int, default=40, help="trial budget per campaign (default 40)")
    p.add_argument("--scenarios", default=str(SCENARIOS), help="the scenarios file (YAML)")
    p.add_argument("--only", nargs="*", help="scenario names to run (default: all)")
    p.add_argument("--methods", nargs="*", help=f"methods (default: {' '.join(SEARCH)} and the studies)")
    p.add_argument("--study-seeds", type=int, help="seeds for the studies (cold, miscal, cold-nN, cold+warm; default: --seeds)")
    p.add_argument("--gp-seeds", type=int, help="seeds for gp (default: --seeds; 1 with --quick: ~20-30 s per 40-trial "
                   "campaign here)")
    p.add_argument("--gp-scenarios", type=int, help="how many scenarios get gp (default: all)")
    p.add_argument("--address", help="a Ray cluster address (default: a private local instance on 127.0.0.1)")
    p.add_argument("--cpus", type=int, help="CPUs of the local Ray instance (default: all)")
    p.add_argument("--overhead-trials", type=int, help="trials of the overhead measurement (default 500)")
    p.add_argument("--resume", action="store_true", help="keep the records of a killed run (OUT.partial.jsonl)")
    p.add_argument("--render", action="store_true", help="only write the Markdown and plots again from OUT")
    return p.parse_args(argv)


def tasks_for(args: argparse.Namespace, names: list[str], seeds: int) -> tuple[list[Task], list[str]]:
    notes: list[str] = []
    methods = list(args.methods) if args.methods else [*SEARCH, *STUDIES, "cold+warm"]
    if not args.methods and args.quick:
        methods.remove("cold-gp")  # a study of its own (15 s per campaign): not in the quick run
    for m in SLOW:
        if m in methods and not gp_available():
            methods.remove(m)
            notes.append(f"{m}: not run, PyTorch is not installed (`make setup-gp`)")
    gp_seeds = args.gp_seeds if args.gp_seeds is not None else (1 if args.quick else seeds)
    gp_scen = args.gp_scenarios if args.gp_scenarios is not None else len(names)
    if "gp" in methods and (gp_seeds < seeds or gp_scen < len(names)):
        notes.append(f"gp: {gp_seeds} seed(s) on {min(gp_scen, len(names))} scenario(s) only (--gp-seeds, --gp-scenarios)")
    tasks: list[Task] = []
    for i, sc in enumerate(names):
        for m in methods:
            n = min(seeds, gp_seeds) if m == "gp" else seeds
            if m in (*STUDIES, "cold+warm") and args.study_seeds:
                n = args.study_seeds
            if m == "gp" and i >= gp_scen:
                continue
            for s in range(n):
                if m == "cold+warm":
                    tasks.append(Task(sc, "cold", s, args.trials, args.scenarios, warm_from_seed=10_000 + s))
                else:
                    tasks.append(Task(sc, m, s, args.trials, args.scenarios))
    # slow tasks first so the pool stays busy at the end
    tasks.sort(key=lambda t: (t.method not in SLOW, t.warm_from_seed is None))
    return tasks, notes


def _key(t: Task) -> tuple[Any, ...]:
    return (t.scenario, t.method + ("+warm" if t.warm_from_seed is not None else ""), t.seed)


def _prepare(args: argparse.Namespace) -> tuple[list[Scenario], list[dict[str, Any]]]:
    """The scenarios to run (``--only``) and their optima; a bad scenario raises with a one-line reason."""
    scenarios = load_scenarios(args.scenarios)
    unknown = sorted(set(args.only or []) - {s.name for s in scenarios})
    if unknown:
        raise ValueError(f"--only: no scenario {', '.join(map(repr, unknown))} in {args.scenarios} "
                         f"(there are: {', '.join(s.name for s in scenarios)})")
    scenarios = [s for s in scenarios if not args.only or s.name in args.only]
    truths = []
    for sc in scenarios:
        try:
            truths.append(truth(sc).summary())
        except AutotuneError as exc:
            raise ValueError(f"scenario {sc.name!r}: {exc}") from None
        print(f"optimum {sc.name}: {optimum_text(truths[-1])}", file=sys.stderr)
    return scenarios, truths


def main(argv: list[str] | None = None) -> int:
    args = _args(argv)
    if args.render:
        out = Path(args.out)
        data = json.loads(out.read_text())
        out.with_suffix(".md").write_text(markdown(data))
        print(f"wrote {out.with_suffix('.md')}, {', '.join(map(str, plots(data, out.parent, out.stem)))}", file=sys.stderr)
        return 0
    seeds = args.seeds or (3 if args.quick else 20)
    started = time.monotonic()
    try:
        scenarios, truths = _prepare(args)
    except (ValueError, AutotuneError) as exc:
        print(f"optimizer_eval: error: {exc}", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tasks, notes = tasks_for(args, [s.name for s in scenarios], seeds)
    os.environ.setdefault("PYTHONHASHSEED", "0")  # the model launcher's per-run seeds use hash()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from autotune.execute import RayExecutor

    ray_opts: dict[str, Any] = {"address": args.address}
    if args.cpus:
        ray_opts["num_cpus"] = args.cpus
    print(f"{len(tasks)} campaigns on Ray ({args.address or 'local 127.0.0.1'})", file=sys.stderr)

    def progress(done: int, total: int) -> None:
        if done == total or done % max(1, total // 20) == 0:
            print(f"{done}/{total} campaigns  {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)

    partial = out.with_suffix(".partial.jsonl")  # each record as it arrives: a killed run resumes (--resume)
    done: dict[tuple[Any, ...], dict[str, Any]] = {}
    if args.resume and partial.exists():
        for line in partial.read_text().splitlines():
            rec = json.loads(line)
            done[(rec["scenario"], rec["method"], rec["seed"])] = rec
    elif partial.exists():
        partial.unlink()
    todo = [t for t in tasks if _key(t) not in done]
    if done:
        print(f"resuming: {len(tasks) - len(todo)} campaigns from {partial}", file=sys.stderr)
        notes.append(f"resumed: {len(tasks) - len(todo)} of {len(tasks)} campaigns kept from an earlier run "
                     f"({partial.name}); 'seconds' counts this run only")

    def save(_: int, rec: dict[str, Any]) -> None:
        with partial.open("a") as f:
            f.write(json.dumps(rec, default=str) + "\n")

    with RayExecutor(ray_opts) as ex:
        fresh = ex.map(run_task, todo, progress=progress, on_result=save)
    records = [r for t in tasks if _key(t) in done for r in [done[_key(t)]]] + fresh
    for sc in scenarios:
        records += rule_records(sc, list(range(seeds)))
    from experiments.evaluation.evalkit.overhead import measure_overhead

    overhead = measure_overhead(scenarios[0], trials=args.overhead_trials or (300 if args.quick else 500))
    print(f"tuner overhead: median {overhead['median_ms']:.1f} ms per trial over {overhead['trials']} trials "
          f"(target <= 50 ms)", file=sys.stderr)
    data = {"meta": {"command": shlex.join(["python", "-m", "experiments.evaluation.optimizer_eval", *(argv or sys.argv[1:])]),
                     "quick": args.quick, "seeds": seeds, "trials": args.trials, "notes": notes,
                     "campaigns": len(tasks), "seconds": round(time.monotonic() - started, 1),
                     "gp_available": gp_available()},
            "truths": truths, "records": records, "overhead": overhead}
    out.write_text(json.dumps(data, indent=1, default=str) + "\n")
    partial.unlink(missing_ok=True)
    md = out.with_suffix(".md")
    md.write_text(markdown(data))
    pngs = plots(data, out.parent, out.stem)
    print(f"wrote {out}, {md}, {', '.join(map(str, pngs))} in {time.monotonic() - started:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

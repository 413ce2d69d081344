"""A simulated month of production jobs as trials: how soon production reaches the dedicated
campaign's best configuration, and what the month cost against always running the default.

    .venv/bin/python -m experiments.evaluation.service_month --days 30 --seeds 0 1 2

For each application (a model campaign: ``launcher: model``) and seed:

- **dedicated**: the campaign as its file says (sampler, budget, 3 repetitions), on the model with noise;
  its best trial is the reference, valued on the *noiseless* model;
- **production**: one job a day for ``--days`` days on a new SQLite study. Each job goes through the real
  service code (``do_ask`` → the exploration policy → the job "runs" → ``do_tell``), and what it tells is
  the model's noisy simulation of the configuration it was handed. No dedicated run is made.

A job *reaches* the reference when its configuration's noiseless value is within 5% of the reference's
(stated before running). Figures per application (medians over seeds, with the range): the first job that
ran a configuration at the reference, the first job from which the best known configuration (what an
exploiting job runs) stays at the reference, the month's total noiseless I/O time against always running
the default and always running the reference, and the dedicated campaign's own I/O time (its runs are
extra node time; production runs happen anyway). Caveat: the model is both the ground truth here and the
policy's judge, so its screening is perfect; ``--judge history`` turns the model off in the policy (as
where the model cannot judge: POSIX, replay) so that only the history screens.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import optuna

from autotune.campaign import CampaignLoop, Runtime, best_trial, load_campaign
from autotune.model import simulate_run
from autotune.optimize import model_metric
from autotune.service import Policy, do_ask, do_tell

ROOT = Path(__file__).resolve().parents[2]  # the checkout
APPS = {"theta-ior": "experiments/campaigns/model-theta-ior.yaml",
        "wrfchem-lustre": "experiments/campaigns/compare-wrfchem-lustre.yaml",
        "vpic-bb": "experiments/campaigns/compare-vpic-collective.yaml"}
REACH = 0.05  # within 5% of the reference's noiseless value


def _campaign(app: str, seed: int, storage: str, study: str, workdir: Path) -> Any:
    c = load_campaign(ROOT / APPS[app])
    return c.with_overrides(storage_url=storage, study=study, workdir=workdir, tracking={"enabled": False},
                            sampler={**c.sampler, "seed": seed})


def _value(rt: Any, cfg: dict[str, Any], metric: str) -> float:
    v = model_metric(rt.space, cfg, metric)
    if v is None:
        raise SystemExit(f"the model cannot value {cfg} for {metric}")
    return float(v)


def dedicated(app: str, seed: int, tmp: Path) -> dict[str, Any]:
    c = _campaign(app, seed, ":memory:", f"ded-{app}-{seed}", tmp / f"ded-{app}-{seed}")
    rt = Runtime.build(c)
    res = CampaignLoop(c, runtime=rt, out=io.StringIO(), progress=False).run()
    best = best_trial(res.study)
    assert best is not None, f"{app}: the dedicated campaign found nothing"
    cfg = rt.config_of(best)
    runs = [t for t in res.study.trials if t.user_attrs.get("ran")]
    reps = c.objective.repeats
    cost = sum(_value(rt, rt.config_of(t), "seconds") * len(t.user_attrs.get("repetitions") or [None] * reps)
               for t in runs)
    return {"config": cfg, "value": _value(rt, cfg, c.objective.metric), "trials": len(runs), "io_seconds": cost}


def production(app: str, seed: int, days: int, policy: Policy, tmp: Path) -> dict[str, Any]:
    work = tmp / f"prod-{app}-{seed}"
    c = _campaign(app, seed, f"sqlite:///{work}/optuna.db", f"prod-{app}", work)
    rt = Runtime.build(c)
    metric = c.objective.metric
    log = []
    for day in range(days):
        a = do_ask(rt, policy, job_id=f"day-{day}", expire_s=86400.0, timeout=600.0, seed=seed * 100_000 + day)
        rng = np.random.default_rng([seed, day, len(app)])
        record = simulate_run(rt.space.pattern, rt.space.system, rt.space.fs.name, a.config, rng=rng, noise=True)
        measured = float(record["metrics"][metric])
        status = do_tell(rt, a.ref, value=measured, failure=None, extra={}, timeout=600.0)  # the day: its job_id
        assert status.startswith("told"), status
        study = optuna.load_study(study_name=c.study, storage=c.storage)
        best = best_trial(study)  # what an exploiting job would run from now on
        known = rt.config_of(best) if best is not None else rt.space.default_config()
        log.append({"day": day, "source": a.source, "config": a.config, "measured": measured,
                    "value": _value(rt, a.config, metric), "seconds": _value(rt, a.config, "seconds"),
                    "best_known_value": _value(rt, known, metric)})
    rejected = {k: sum(t.user_attrs.get("rejected_by") == k for t in study.get_trials(deepcopy=False))
                for k in ("history", "model", "rules")}
    return {"log": log, "rejected": rejected, "default_value": _value(rt, rt.space.default_config(), metric),
            "default_seconds": _value(rt, rt.space.default_config(), "seconds"), "maximize": c.objective.maximize, "rt": rt}


def at_reference(value: float, ref: float, maximize: bool) -> bool:
    return value >= (1 - REACH) * ref if maximize else value <= (1 + REACH) * ref


def figures(app: str, seed: int, ded: dict[str, Any], prod: dict[str, Any]) -> dict[str, Any]:
    log, mx, ref = prod["log"], prod["maximize"], ded["value"]
    first = next((e["day"] + 1 for e in log if at_reference(e["value"], ref, mx)), None)
    stays = None
    for e in reversed(log):
        if not at_reference(e["best_known_value"], ref, mx):
            break
        stays = e["day"] + 1
    total = sum(e["seconds"] for e in log)
    days = len(log)
    ref_seconds = _value(prod["rt"], ded["config"], "seconds")
    return {"app": app, "seed": seed, "days": days, "explored": sum(e["source"] == "explore" for e in log),
            "rejected": prod["rejected"],
            "first_job_at_ref": first, "best_known_at_ref_from": stays,
            "jobs_at_ref": sum(at_reference(e["value"], ref, mx) for e in log),
            "vs_default": total / (days * prod["default_seconds"]) - 1.0,
            "vs_reference": total / (days * ref_seconds) - 1.0,
            "month_io_s": total, "default_io_s": days * prod["default_seconds"], "reference_io_s": days * ref_seconds,
            "dedicated_trials": ded["trials"], "dedicated_io_s": ded["io_seconds"],
            "ref_gain": (ref / prod["default_value"]) if mx else (prod["default_value"] / ref),
            "speedups": [prod["default_seconds"] / e["seconds"] for e in log],
            "best_known_speedups": [_speedup(prod, e["best_known_value"]) for e in log]}


def _speedup(prod: dict[str, Any], value: float) -> float:
    return value / prod["default_value"] if prod["maximize"] else prod["default_value"] / value


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    import matplotlib
    import matplotlib.ticker

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    apps = list(dict.fromkeys(r["app"] for r in rows))
    fig, axes = plt.subplots(1, len(apps), figsize=(4.2 * len(apps), 3.2), dpi=80, squeeze=False)
    for ax, app in zip(axes[0], apps, strict=True):
        mine = [r for r in rows if r["app"] == app]
        for i, r in enumerate(mine):
            days = range(1, r["days"] + 1)
            ax.plot(days, r["speedups"], ".", color=f"C{i}", alpha=0.6, ms=5,
                    label="job's configuration" if i == 0 else None)
            ax.plot(days, r["best_known_speedups"], "-", color=f"C{i}", lw=1.2,
                    label=f"best known (seed {r['seed']})")
        ref = statistics.median(r["ref_gain"] for r in mine)
        ax.axhline(ref, color="k", ls="--", lw=1, label="dedicated campaign's best")
        ax.axhline(1.0, color="grey", ls=":", lw=1, label="default")
        ax.set_title(app, fontsize=10)
        ax.set_xlabel("production job (one a day)")
        ax.grid(alpha=0.3)
        if max(max(r["speedups"]) for r in mine) / min(min(r["speedups"]) for r in mine) >= 4:
            ax.set_yscale("log")  # a narrow range reads better on the linear axis
            ax.yaxis.set_major_locator(matplotlib.ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
            ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}x"))
    axes[0][0].set_ylabel("speed-up over the default (noiseless)")
    axes[0][0].legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path)


def _fmt(xs: list[Any], as_percent: bool = False) -> str:
    vals = [x for x in xs if x is not None]
    never = len(xs) - len(vals)
    if not vals:
        return "never"
    f = (lambda v: f"{100 * v:+.0f}%") if as_percent else (lambda v: f"{v:g}")
    out = f(statistics.median(vals)) + (f" [{f(min(vals))}, {f(max(vals))}]" if len(vals) > 1 else "")
    return out + (f", never in {never}" if never else "")


def table(rows: list[dict[str, Any]]) -> str:
    head = ["app", "explored jobs", "first job at ref", "best known at ref from job", "jobs at ref",
            "month vs default", "month vs ref", "ref gain", "dedicated trials (I/O s) vs month I/O s"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for app in dict.fromkeys(r["app"] for r in rows):
        m = [r for r in rows if r["app"] == app]
        lines.append("| " + " | ".join([
            app, _fmt([r["explored"] for r in m]), _fmt([r["first_job_at_ref"] for r in m]),
            _fmt([r["best_known_at_ref_from"] for r in m]), _fmt([r["jobs_at_ref"] for r in m]),
            _fmt([r["vs_default"] for r in m], as_percent=True), _fmt([r["vs_reference"] for r in m], as_percent=True),
            f"{statistics.median(r['ref_gain'] for r in m):.2f}x",
            f"{statistics.median(r['dedicated_trials'] for r in m):g} "
            f"({statistics.median(r['dedicated_io_s'] for r in m):.3g} s) vs "
            f"{statistics.median(r['month_io_s'] for r in m):.3g} s"]) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.evaluation.service_month", description=__doc__.split("\n")[0])
    ap.add_argument("--apps", nargs="+", default=list(APPS), choices=list(APPS))
    ap.add_argument("--days", type=int, default=30)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--explore", type=float, default=0.2)
    ap.add_argument("--max-slowdown", type=float, default=0.25)
    ap.add_argument("--judge", choices=("model+history", "history"), default="model+history",
                    help="'history': the policy's model check is off (as where the model cannot judge)")
    ap.add_argument("--plot", default=None, help="write the figure here (PNG)")
    ap.add_argument("--out", default=None, help="write the rows here (JSON)")
    ap.add_argument("--replot", default=None, metavar="JSON", help="only draw --plot from the rows of an earlier --out")
    args = ap.parse_args(argv)
    if args.replot:
        rows = json.loads(Path(args.replot).read_text())["rows"]
        print(table(rows))
        plot(rows, Path(args.plot or "service_month.png"))
        return 0
    policy = Policy(explore=args.explore, max_slowdown=args.max_slowdown, model_check=args.judge != "history")
    rows = []
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="svcmonth-") as tmp:
        os.environ["AUTOTUNE_CACHE_DIR"] = str(Path(tmp) / "cache")
        for app in args.apps:
            for seed in args.seeds:
                ded = dedicated(app, seed, Path(tmp))
                prod = production(app, seed, args.days, policy, Path(tmp))
                r = figures(app, seed, ded, prod)
                rows.append(r)
                print(json.dumps({k: (round(v, 4) if isinstance(v, float) else v) for k, v in r.items()
                                  if k not in ("speedups", "best_known_speedups")}), flush=True)
    print(f"\nexplore {args.explore}, max slowdown {args.max_slowdown}, judge {args.judge}, {args.days} days, "
          f"seeds {args.seeds}; reaching = within {100 * REACH:.0f}% of the dedicated best on the noiseless model; "
          "medians [range] over seeds")
    print(table(rows))
    print(f"{time.monotonic() - t0:.0f} s; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if args.plot:
        plot(rows, Path(args.plot))
        print(f"plot: {args.plot}")
    if args.out:
        Path(args.out).write_text(json.dumps({"command": " ".join(sys.argv), "args": vars(args), "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

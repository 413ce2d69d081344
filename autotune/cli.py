"""The ``autotune`` command: tune, status, export, model calibrate. Thin: the work is in the packages."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from autotune.errors import AutotuneError


def _overrides(p: argparse.ArgumentParser) -> None:
    p.add_argument("--study", help="study name (default: the campaign's name)")
    p.add_argument("--storage", help="Optuna storage URL (default: sqlite:///WORKDIR/optuna.db)")
    p.add_argument("--workdir", help="work directory (default: autotune-runs/NAME)")


def _tune_overrides(p: argparse.ArgumentParser) -> None:
    _overrides(p)
    p.add_argument("--trials", type=int, help="total trials of the campaign (running again resumes up to this)")
    p.add_argument("--repeats", type=int, help="repetitions per configuration (best of N)")
    p.add_argument("--budget", help="wall-time budget, e.g. 8h or 45m: stops between trials, resumable")
    p.add_argument("--tracking-uri", help="MLflow tracking URI (default: sqlite:///WORKDIR/mlflow.db)")
    p.add_argument("--no-tracking", action="store_true", help="do not log to MLflow")
    p.add_argument("--executor", choices=["serial", "ray"], help="where trials run (default: serial)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="autotune", description="Bayesian tuning of parallel-I/O settings.")
    sub = parser.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("tune", help="run or resume a tuning campaign")
    t.add_argument("campaign", help="campaign YAML file")
    _tune_overrides(t)
    t.add_argument("--dry-run", action="store_true", help="print what each trial would run, run nothing")
    t.add_argument("--notify", metavar="CMD", help="command run at the end with the summary on stdin (no shell)")
    s = sub.add_parser("status", help="trials, best so far, time spent")
    s.add_argument("campaign")
    _overrides(s)
    s.add_argument("--trials-table", action="store_true", help="list every trial")
    e = sub.add_parser("export", help="print the best configuration as hints")
    e.add_argument("campaign")
    _overrides(e)
    e.add_argument("--format", default="env", help="mpich, romio, lfs, dw, h5py, env or json (default: env)")
    e.add_argument("--files", default=None, help="file patterns for MPICH_MPIIO_HINTS, comma-separated (default: the app's)")
    e.add_argument("--path", default="$OUTPUT_DIR", help="directory for lfs setstripe")
    sp = sub.add_parser("space", help="show the search space a campaign searches on its target")
    sp.add_argument("campaign")
    from autotune.report._cli import add_arguments

    cmp_ = sub.add_parser("compare", help="run or resume campaigns on several targets, then write a report")
    _tune_overrides(cmp_)
    add_arguments(cmp_, running=True)
    rep = sub.add_parser("report", help="regenerate a comparison report from the storages (runs nothing)")
    _overrides(rep)
    add_arguments(rep, running=False)
    m = sub.add_parser("model", help="the performance model")
    msub = m.add_subparsers(dest="model_cmd", required=True)
    msub.add_parser("calibrate", help="compare the model with the seeds' published figures")
    return parser


def load(args: argparse.Namespace) -> Any:
    from autotune.campaign import load_campaign
    from autotune.units import parse_duration

    c = load_campaign(args.campaign)
    kw: dict[str, Any] = {}
    if getattr(args, "workdir", None):
        kw["workdir"] = Path(args.workdir).expanduser().resolve()
    if getattr(args, "storage", None):
        kw["storage_url"] = args.storage
    if getattr(args, "study", None):
        kw["study"] = args.study
    budget = c.budget
    if getattr(args, "trials", None) is not None:
        if args.trials < 1:
            raise AutotuneError(f"--trials: {args.trials} must be >= 1")
        budget = replace(budget, trials=args.trials)
    if getattr(args, "budget", None):
        budget = replace(budget, trials=budget.trials if args.trials is not None else None,
                         wall_time=parse_duration(args.budget, "--budget"))
    kw["budget"] = budget
    if getattr(args, "repeats", None) is not None:
        if args.repeats < 1:
            raise AutotuneError(f"--repeats: {args.repeats} must be >= 1")
        kw["objective"] = replace(c.objective, repeats=args.repeats)
    tracking = dict(c.tracking)
    if getattr(args, "tracking_uri", None):
        tracking["uri"] = args.tracking_uri
    if getattr(args, "no_tracking", False):
        tracking["enabled"] = False
    kw["tracking"] = tracking
    if getattr(args, "executor", None):
        kw["executor"] = {**c.executor, "name": args.executor}
    return c.with_overrides(**kw)


def cmd_tune(args: argparse.Namespace, argv: Sequence[str]) -> int:
    from autotune.campaign import CampaignLoop, Runtime, summary_text
    from autotune.tracking import get_tracker

    c = load(args)
    rt = Runtime.build(c)
    if args.dry_run:
        return _dry_run(rt, c.budget.trials)
    tracker = None
    if c.tracking.get("enabled", True):
        tracker = get_tracker("mlflow", {"uri": c.tracking_uri, "experiment": str(c.tracking.get("experiment", c.name)),
                                         "artifacts": c.tracking.get("artifacts") or str(c.workdir / "mlartifacts")})
    if c.executor.get("name", "serial") != "serial":
        from autotune.execute import run_with_executor

        result = run_with_executor(c, rt, tracker=tracker, command_line=shlex.join(["autotune", *argv]))
    else:
        result = CampaignLoop(c, runtime=rt, tracker=tracker, command_line=shlex.join(["autotune", *argv])).run()
    print()
    print(summary_text(rt, result.study))
    if result.stopped_by == "wall_time":
        print("stopped: wall-time budget reached between trials; run the same command to continue")
    print(f"storage: {c.storage}  (study {c.study})")
    if tracker is not None:
        print(f"tracking: {c.tracking_uri}  (mlflow ui --backend-store-uri {c.tracking_uri} --host 127.0.0.1)")
    if args.notify:  # issue 6: the notification hook (autotune/report/_notify.py)
        from autotune.report._notify import notify

        warning = notify(args.notify, summary_text(rt, result.study), result.stopped_by)
        if warning:
            print(f"autotune: warning: {warning}", file=sys.stderr)
    return 130 if result.stopped_by == "interrupted" else 0


def _dry_run(rt: Any, trials: int | None) -> int:
    """Render what the first trials would run (the default, then sampler proposals), submit nothing."""
    import optuna

    from autotune.launch import RunRequest

    c = rt.campaign
    for n in rt.space.notices:
        print(f"notice: {n}")
    print(f"search space on {c.system.name}/{c.fs.name}:")
    print("\n".join(f"  {ln}" for ln in rt.space.describe()))
    study = optuna.create_study(direction=c.objective.direction, sampler=optuna.samplers.RandomSampler(seed=0))
    study.enqueue_trial(rt.space.to_optuna(rt.space.default_config()), user_attrs={"is_default": True})
    out_dir = c.workdir / "dry-run"
    out_dir.mkdir(parents=True, exist_ok=True)
    shown, asked, want = 0, 0, min(trials or 5, 50)
    while shown < want and asked < 100 * want:
        trial = study.ask(fixed_distributions=rt.space.distributions())
        asked += 1
        config = rt.space.from_optuna(trial.params)
        if not rt.space.feasible(config):
            study.tell(trial, state=optuna.trial.TrialState.PRUNED)
            continue
        is_default = bool(trial.user_attrs.get("is_default"))
        settings = rt.settings_for(config, is_default)
        req = RunRequest(campaign=c.study, trial=shown, repetition=0, app=c.app, system=c.system, fs=c.fs,
                         config=config, settings=settings, run_dir=rt.run_dir(shown, 0), data_dir=rt.data_dir(shown, 0),
                         timeout=c.budget.run_timeout, is_default=is_default)
        text = rt.launcher.describe(req)
        path = out_dir / f"trial-{shown:04d}.txt"
        path.write_text(text + "\n")
        label = " (the default configuration)" if is_default else ""
        print(f"\n# ---- trial {shown}{label}: {', '.join(f'{k}={v}' for k, v in sorted(config.items()))}")
        print(f"# written to {path}")
        print(text)
        study.tell(trial, state=optuna.trial.TrialState.PRUNED)
        shown += 1
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    from optuna.trial import TrialState

    from autotune.campaign import Runtime, open_study, summary_text

    c = load(args)
    rt = Runtime.build(c)
    study = open_study(c, rt.space, create=False)
    trials = study.get_trials(deepcopy=False)
    running = [t for t in trials if t.state == TrialState.RUNNING]
    infeasible = sum(1 for t in trials if t.user_attrs.get("infeasible"))
    print(f"study {c.study} in {c.storage}")
    print(f"trials: {len(trials)} asked, {infeasible} broke a rule (not run), {len(running)} running"
          + (f" (trial {', '.join(str(t.number) for t in running)})" if running else ""))
    print(summary_text(rt, study))
    if args.trials_table:
        for t in trials:
            if t.user_attrs.get("infeasible"):
                continue
            reps = " ".join(f"{v:.4g}" if v is not None else "fail" for v in t.user_attrs.get("repetitions", []))
            val = f"{t.value:.4g}" if t.value is not None else "-"
            print(f"{t.number:4d} {t.state.name:8s} {val:>10s} [{reps}] {rt.config_of(t)}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from autotune.campaign import Runtime, best_trial, open_study
    from autotune.hints import render

    c = load(args)
    rt = Runtime.build(c)
    study = open_study(c, rt.space, create=False)
    best = best_trial(study)
    if best is None:
        raise AutotuneError(f"study {c.study!r} has no completed trial yet: nothing to export")
    settings = rt.settings_for(rt.config_of(best), bool(best.user_attrs.get("is_default")))
    patterns = args.files.split(",") if args.files else list(c.app.hint_files)
    print(render(args.format, settings, mpi_flavour=c.system.mpi_flavour, patterns=patterns, path=args.path))
    return 0


def cmd_space(args: argparse.Namespace) -> int:
    from autotune.campaign import Runtime

    rt = Runtime.build(load(args))
    for n in rt.space.notices:
        print(f"notice: {n}")
    print("\n".join(rt.space.describe()))
    print("rules: " + ", ".join(r.name for r in rt.space.rules))
    return 0


def cmd_model(args: argparse.Namespace) -> int:
    from autotune.model import calibrate

    return 0 if calibrate(sys.stdout) else 1


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    try:
        if args.cmd == "tune":
            return cmd_tune(args, argv)
        if args.cmd == "status":
            return cmd_status(args)
        if args.cmd == "export":
            return cmd_export(args)
        if args.cmd == "space":
            return cmd_space(args)
        if args.cmd in ("compare", "report"):
            from autotune.report._cli import cmd_compare

            return cmd_compare(args, argv)
        return cmd_model(args)
    except AutotuneError as exc:
        print(f"autotune: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("autotune: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if os.environ.get("AUTOTUNE_DEBUG"):
            raise
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        print(f"autotune: internal error: {type(exc).__name__}: {first} (AUTOTUNE_DEBUG=1 shows the traceback)",
              file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())

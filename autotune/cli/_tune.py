"""``autotune tune``: run or resume a campaign, or ``--dry-run`` it."""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from typing import Any

from autotune.cli._common import add_tune_overrides, load


def register(sub: Any) -> None:
    t = sub.add_parser("tune", help="run or resume a tuning campaign")
    t.add_argument("campaign", help="campaign YAML file")
    add_tune_overrides(t)
    t.add_argument("--dry-run", action="store_true", help="print what each trial would run, run nothing")
    t.add_argument("--notify", metavar="CMD", help="command run at the end with the summary on stdin (no shell)")
    t.set_defaults(run=cmd_tune)


def cmd_tune(args: argparse.Namespace, argv: Sequence[str]) -> int:
    from autotune.campaign import CampaignLoop, Runtime, summary_text
    from autotune.tracking import get_tracker

    c = load(args)
    rt = Runtime.build(c)
    if args.dry_run:
        return _dry_run(rt, c.budget.trials)
    from autotune.campaign._stores import prepare_stores

    prepare_stores(c)  # writable work directory, intact stores: one line otherwise
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

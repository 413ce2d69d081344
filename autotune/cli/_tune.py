"""``autotune tune``: run or resume a campaign, or ``--dry-run`` it."""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from typing import Any

from autotune._safefile import make_dirs, write_file
from autotune._shell import comment, quote
from autotune.cli._common import add_tune_overrides, load, print_model_verdict, warn_stack


def register(sub: Any) -> None:
    t = sub.add_parser("tune", help="run or resume a tuning campaign")
    t.add_argument("campaign", help="campaign YAML file")
    add_tune_overrides(t)
    t.add_argument("--dry-run", action="store_true", help="print what each trial would run, run nothing")
    t.add_argument("--notify", metavar="CMD", help="command run at the end with the summary on stdin (no shell)")
    t.set_defaults(run=cmd_tune)


def cmd_tune(args: argparse.Namespace, argv: Sequence[str]) -> int:
    from autotune.campaign import Runtime

    if args.notify is not None:  # checked before hours of trials, not at their end
        from autotune.report import check_notify

        check_notify(args.notify)
    c = load(args)
    rt = Runtime.build(c)
    warn_stack(rt)  # --dry-run too: it refuses where the real run would
    if args.dry_run:
        return _dry_run(rt, c.budget.trials)
    from autotune.campaign import nothing_left_on_failure

    with nothing_left_on_failure(c.workdir):  # a refused store or bad input leaves no work directory behind
        return _tune(c, rt, args, argv)


def _tune(c: Any, rt: Any, args: argparse.Namespace, argv: Sequence[str]) -> int:
    from autotune.campaign import prepare_stores, summary_text
    from autotune.execute import run_with_executor
    from autotune.tracking import campaign_tracker

    prepare_stores(c)  # writable work directory, intact stores: one line otherwise
    tracker = campaign_tracker(c.tracking, experiment=c.name, uri=c.tracking_uri, workdir=c.workdir)
    result = run_with_executor(c, rt, tracker=tracker, command_line=shlex.join(["autotune", *argv]))
    print()
    print(summary_text(rt, result.study))
    if result.stopped_by == "wall_time":
        print("stopped: wall-time budget reached between trials; run the same command to continue")
    if result.stopped_by == "default_failed":
        print("stopped: the default configuration failed (see above); fix the campaign, then run the same command")
    print(f"storage: {c.storage}  (study {c.study})")
    if tracker is not None and tracker.name == "mlflow":
        print(f"tracking: {c.tracking_uri}  (mlflow ui --backend-store-uri {c.tracking_uri} --host 127.0.0.1)")
    if args.notify:  # the notification hook (autotune.report.notify)
        from autotune.report import notify

        warning = notify(args.notify, summary_text(rt, result.study), result.stopped_by)
        if warning:
            print(f"autotune: warning: {warning}", file=sys.stderr)
    if result.stopped_by == "interrupted":
        return 130
    s = result.summary
    if result.stopped_by == "default_failed" or (s.get("trials_run") and s.get("trials_failed") == s.get("trials_run")):
        print("autotune: every trial failed: nothing to recommend (exit 1)", file=sys.stderr)
        return 1
    return 0


def _reservation_job(c: Any, action: str, out_dir: Any) -> None:
    """A persistent campaign's set-up (``create``) or tear-down (``destroy``) job script, printed and written."""
    from autotune.campaign import reservation_job

    p = c.persistent
    text = reservation_job(c, action)
    if p is None or text is None:
        if p is not None:
            print("\n" + comment(f"---- no {action} job: the reservation {p.name} is "
                                  + ("named as existing" if action == "create" else "kept at the end")))
        return
    path = out_dir / f"bb-{action}.sh"
    write_file(path, text)
    when = "before the first trial (once; a resumed campaign finds it)" if action == "create" else "after the last trial"
    print("\n" + comment(f"---- {action} job for the persistent reservation {p.name}, {when}"))
    print(comment(f"written to {path}"))
    print(text, end="")


def _dry_run(rt: Any, trials: int | None) -> int:
    """Print (and write) what the first trials of the real run will run: the loop's own proposals, each with
    the exact command, environment and files; nothing runs, nothing is submitted, no storage is touched."""
    from autotune.campaign import proposals, what_it_gets
    from autotune.space import rules_of_thumb

    c = rt.campaign
    for n in rt.space.notices:
        print(f"notice: {n}")
    print_model_verdict(rt)
    print(f"search space on {c.system.name}/{c.fs.name}:")
    print("\n".join(f"  {ln}" for ln in rt.space.describe()))
    if c.sampler.get("seed") is None and c.sampler.get("name") != "grid":
        print("note: sampler.seed is not set: proposals after the enqueued ones differ from run to run")
    baselines, notes = rules_of_thumb(rt.space) if c.sampler.get("rules_of_thumb", True) else ([], [])
    thumbs = {b.name: b.source for b in baselines}
    for line in notes:
        print(f"notice: {line}")
    shown, depends = proposals(c, rt, min(trials or 5, 50))
    out_dir = c.workdir / "dry-run"
    make_dirs(out_dir, under=c.workdir)
    _reservation_job(c, "create", out_dir)
    for p in shown:
        command, env, files = what_it_gets(rt, rt.request(p.number, 0, p.config, p.is_default, seeded=False))
        text = [command]
        text += [comment(f"environment: {k}={quote(v)}") for k, v in sorted(env.items())]
        for path, content in sorted(files.items()):
            text += [comment(f"file {path}:"), *(comment(f"  {ln}") for ln in content.splitlines())]
        path = out_dir / f"trial-{p.number:04d}.txt"
        write_file(path, "\n".join(text) + "\n")
        label = (" (the default configuration)" if p.is_default else
                 " (the baseline: the app's own settings)" if p.baseline else
                 f" (rule of thumb {p.rule}: {thumbs.get(p.rule, '')})" if p.rule else
                 " (enqueued: model-ranked or warm start)" if p.initial else "")
        print("\n" + comment(f"---- trial {p.number}{label}: {', '.join(f'{k}={v}' for k, v in sorted(p.config.items()))}"))
        print(comment(f"written to {path}"))
        print("\n".join(text))
    _reservation_job(c, "destroy", out_dir)
    if depends:
        print("\n" + comment(f"the proposals after trial {shown[-1].number if shown else 0} depend on the measured "
                              "values: the real run makes them from what it measures"))
    from autotune.campaign import dry_run_confirmation_lines

    print("\n" + "\n".join(comment(line) for line in dry_run_confirmation_lines(c, rt)))
    from autotune.campaign import preflight
    from autotune.errors import AutotuneError

    try:  # the scheduler's verdict on the first job; a refusal warns (scripts for another site stay viewable)
        note = preflight(rt)
    except AutotuneError as exc:
        print(f"autotune: warning: {exc} (the campaign would stop here with exit code 2)", file=sys.stderr)
    else:
        if note:
            print("\n" + comment(f"preflight: {note}"))
    return 0

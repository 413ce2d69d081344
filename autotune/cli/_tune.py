"""``autotune tune``: run or resume a campaign, or ``--dry-run`` it."""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from typing import Any

from autotune.campaign import Runtime, dry_run, nothing_left_on_failure, prepare_stores, summary_text
from autotune.cli._common import load, warn_stack
from autotune.execute import run_with_executor
from autotune.tracking import campaign_tracker, check_notify, notify


def cmd_tune(args: argparse.Namespace, argv: Sequence[str]) -> int:
    if args.notify is not None:  # checked before hours of trials, not at their end

        check_notify(args.notify)
    c = load(args)
    rt = Runtime.build(c)
    warn_stack(rt)  # --dry-run too: it refuses where the real run would
    if args.dry_run:
        return _dry_run(rt, c.budget.trials)
    with nothing_left_on_failure(c.workdir):  # a refused store or bad input leaves no work directory behind
        return _tune(c, rt, args, argv)


def _tune(c: Any, rt: Any, args: argparse.Namespace, argv: Sequence[str]) -> int:
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


def _dry_run(rt: Any, trials: int | None) -> int:
    """Print what the first trials of the real run will run (``campaign.dry_run`` writes each to a file)."""

    dry = dry_run(rt, trials)
    print(dry.text, end="")
    if dry.warning is not None:  # a refusal warns: scripts for another site stay viewable
        print(f"autotune: warning: {dry.warning}", file=sys.stderr)
    return 0

"""``autotune compare`` and ``autotune report``: run campaigns on several targets, write the comparison report."""

from __future__ import annotations

import argparse
import copy
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from autotune.campaign import Campaign, nonempty_path, workdir_path
from autotune.cli._common import load
from autotune.errors import ConfigError
from autotune.report import check_notify, compare_campaigns, notify
from autotune.units import parse_duration


def load_all(args: argparse.Namespace) -> list[Campaign]:
    """Each campaign with the overrides; ``--workdir`` is a parent (one subdirectory per campaign) and
    ``--study`` a prefix, so the campaigns never share a work directory or a study."""
    if len(args.campaigns) < 1:
        raise ConfigError("compare: give at least one campaign file")
    out = []
    for path in args.campaigns:
        a = copy.copy(args)
        a.campaign = path
        a.study = None
        a.workdir = None
        c = load(a)
        if args.workdir:
            c = c.with_overrides(workdir=Path(args.workdir).expanduser().resolve() / c.name)
            if not args.storage:
                c = c.with_overrides(storage_url=f"sqlite:///{c.workdir / 'optuna.db'}")
        if args.study:
            c = c.with_overrides(study=f"{args.study}-{c.study}")
        out.append(c)
    return out


def cmd_compare(args: argparse.Namespace, argv: Sequence[str]) -> int:
    """Run or resume every campaign (unless --no-run / report), then write the report (its parser declares
    that it needs matplotlib: checked before this module loads)."""

    report_dir = Path(nonempty_path(args.report, "--report")).expanduser().resolve()  # '' meant the current directory
    workdir_path(report_dir, "--report")  # a file there is said now, not after the campaigns ran
    if args.notify is not None:
        check_notify(args.notify)
    campaigns = load_all(args)
    running = args.cmd == "compare" and not args.no_run
    wall = parse_duration(args.budget, "--budget") if running and getattr(args, "budget", None) else None
    tracking_uri = getattr(args, "tracking_uri", None)
    if getattr(args, "no_tracking", False):
        tracking_uri = ""
    result = compare_campaigns(campaigns, report_dir, run=running, wall_time=wall,
                               out=sys.stdout, command_line=shlex.join(["autotune", *argv]),
                               tracking_uri=tracking_uri)
    text = result.report.text()
    print()
    print(text)
    print(f"markdown: {result.report.markdown}")
    if result.report.mlflow_run:
        print(f"mlflow: comparison run {result.report.mlflow_run} (experiment autotune-compare)")
    status = "interrupted" if result.interrupted else "wall_time" if result.out_of_time else "done"
    if result.out_of_time:
        print("stopped: wall-time budget reached between trials; run the same command to continue")
    if args.notify:
        warning = notify(args.notify, text, status, result.report.html)
        if warning:
            print(f"autotune: warning: {warning}", file=sys.stderr)
    return 130 if result.interrupted else 0

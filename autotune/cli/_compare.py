"""``autotune compare`` and ``autotune report``: run campaigns on several targets, write the comparison report."""

from __future__ import annotations

import argparse
import copy
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autotune._extras import require
from autotune.cli._common import add_overrides, add_tune_overrides, load
from autotune.errors import ConfigError
from autotune.units import parse_duration

if TYPE_CHECKING:
    from autotune.campaign import Campaign


def register(sub: Any) -> None:
    cmp_ = sub.add_parser("compare", help="run or resume campaigns on several targets, then write a report")
    add_tune_overrides(cmp_)
    add_arguments(cmp_, running=True)
    cmp_.set_defaults(run=cmd_compare)
    rep = sub.add_parser("report", help="regenerate a comparison report from the storages (runs nothing)")
    add_overrides(rep)
    add_arguments(rep, running=False)
    rep.set_defaults(run=cmd_compare)


def add_arguments(p: argparse.ArgumentParser, *, running: bool) -> None:
    """Arguments of compare (``running``) and report besides the shared overrides."""
    p.add_argument("campaigns", nargs="+", metavar="CAMPAIGN", help="campaign YAML files (same app, different targets)")
    p.add_argument("--report", required=True, metavar="DIR", help="directory for report.html, report.md, report.json")
    if running:
        p.add_argument("--no-run", action="store_true", help="run nothing: regenerate the report from the storages")
    else:
        p.add_argument("--tracking-uri", help="MLflow URI for the comparison run (default: the first campaign's)")
        p.add_argument("--no-tracking", action="store_true", help="do not log the comparison to MLflow")
    p.add_argument("--notify", metavar="CMD", help="command run at the end with the summary on stdin (no shell)")


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
    """Run or resume every campaign (unless --no-run / report), then write the report."""
    require("matplotlib", "report", "autotune compare/report (plots)")  # before any campaign runs
    from autotune.campaign import nonempty_path, workdir_path  # lazy: Optuna stack, fast --help
    from autotune.report import check_notify, compare_campaigns, notify  # lazy: matplotlib (optional), checked first

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

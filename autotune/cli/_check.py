"""``autotune check``: run one configuration once and show what it received and what was measured."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from autotune.campaign import Runtime, format_check, parse_config_overrides, run_check
from autotune.cli._common import load, print_model_verdict, warn_stack


def cmd_check(args: argparse.Namespace, argv: Sequence[str] = ()) -> int:
    c = load(args)
    rt = Runtime.build(c)
    warn_stack(rt)  # refuses exactly where `tune` would (hints the detected MPI-IO ignores), with the fix
    rt.check_target()
    for notice in rt.space.notices:
        print(f"notice: {notice}")
    print_model_verdict(rt)
    config = parse_config_overrides(rt, args.config) if args.config else None
    report = run_check(rt, config)
    print(format_check(rt, report), flush=True)
    return 1 if report.error else 0

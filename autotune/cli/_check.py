"""``autotune check``: run one configuration once and show what it received and what was measured."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from autotune.cli._common import add_overrides, load, print_model_verdict, warn_stack


def register(sub: Any) -> None:
    c = sub.add_parser("check", help="run the default configuration once: command, environment, hints file, "
                                     "output, metric with unit and direction, hints in effect")
    c.add_argument("campaign", help="campaign YAML file")
    add_overrides(c)
    c.add_argument("--config", action="append", default=[], metavar="NAME=VALUE",
                   help="run this configuration instead of the default (repeatable, e.g. mpiio.cb_nodes=2)")
    c.set_defaults(run=cmd_check)


def cmd_check(args: argparse.Namespace, argv: Sequence[str] = ()) -> int:
    from autotune.campaign import (  # lazy: Optuna stack, fast --help
        Runtime,
        format_check,
        parse_config_overrides,
        run_check,
    )

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

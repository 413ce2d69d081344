"""``autotune submit``: a campaign on a Ray cluster (Ray Jobs API); status, logs and stop by the same command."""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from autotune.errors import ConfigError
from autotune.execute import raysubmit

FINAL = {"SUCCEEDED", "FAILED", "STOPPED"}


def register(sub: Any) -> None:
    s = sub.add_parser("submit", help="run a campaign on a Ray cluster through Ray Jobs (or --status/--logs/--stop ID)")
    s.add_argument("campaign", nargs="?", help="campaign YAML file (its directory is shipped as the working dir)")
    s.add_argument("--address", required=True, help="the Ray dashboard, e.g. http://127.0.0.1:8265")
    s.add_argument("--python", default="python", help="the cluster's Python with autotune installed (default: python)")
    s.add_argument("--wait", action="store_true", help="wait for the job to end, then print its logs")
    act = s.add_mutually_exclusive_group()
    act.add_argument("--status", metavar="ID", help="the job's status")
    act.add_argument("--logs", metavar="ID", help="the job's output so far")
    act.add_argument("--stop", metavar="ID", help="stop the job (the campaign stops between trials, resumable)")
    s.add_argument("--tune-args", default="", metavar="'OPTIONS'",
                   help="options for `autotune tune` on the cluster, e.g. --tune-args '--trials 40 --no-tracking'")
    s.set_defaults(run=cmd_submit)


def cmd_submit(args: argparse.Namespace, argv: Sequence[str] = ()) -> int:
    if args.status:
        print(raysubmit.status(args.address, args.status))
        return 0
    if args.logs:
        print(raysubmit.logs(args.address, args.logs), end="")
        return 0
    if args.stop:
        print("stopped" if raysubmit.stop(args.address, args.stop) else "not running")
        return 0
    if not args.campaign:
        raise ConfigError("submit: give a campaign file, or --status/--logs/--stop ID")
    try:
        tune_args = shlex.split(args.tune_args)
    except ValueError as exc:
        raise ConfigError(f"--tune-args: {args.tune_args!r}: {exc}") from None
    sid = raysubmit.submit(args.address, Path(args.campaign), tune_args, python=args.python)
    print(sid)
    if not args.wait:
        print(f"autotune submit --address {args.address} --status {sid}   (--logs, --stop)", file=sys.stderr)
        return 0
    while (state := raysubmit.status(args.address, sid)) not in FINAL:
        time.sleep(1.0)
    print(raysubmit.logs(args.address, sid), end="")
    print(f"job {sid}: {state}", file=sys.stderr)
    return 0 if state == "SUCCEEDED" else 1


"""``autotune submit``: a campaign on a Ray cluster (Ray Jobs API); status, logs and stop by the same command."""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from autotune.errors import ConfigError
from autotune.execute import raysubmit

FINAL = {"SUCCEEDED", "FAILED", "STOPPED"}


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


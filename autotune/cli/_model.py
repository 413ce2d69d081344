"""``autotune model ...``: the performance model's own commands."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from autotune.cli._modelfit import register as register_fit


def register(sub: Any) -> None:
    m = sub.add_parser("model", help="the performance model")
    msub = m.add_subparsers(dest="model_cmd", required=True)
    c = msub.add_parser("calibrate", help="compare the model with the cited sources' published figures")
    c.add_argument("--cross-validate", action="store_true",
                   help="leave one seed system out, fit the shared constants on the others, predict it")
    c.add_argument("--out-of-sample", action="store_true",
                   help="published figures beyond the cited sources, predicted without fitting (docs/model.md)")
    c.set_defaults(run=cmd_calibrate)
    register_fit(msub)


def cmd_calibrate(args: argparse.Namespace, argv: Sequence[str] = ()) -> int:
    if getattr(args, "out_of_sample", False):
        from autotune.model import outofsample_report as published  # lazy: NumPy, fast --help

        return 0 if published(sys.stdout) else 1
    if getattr(args, "cross_validate", False):
        from autotune.model import crossval_report as report  # lazy: NumPy, fast --help

        return 0 if report(sys.stdout) else 1
    from autotune.model import calibrate  # lazy: NumPy, fast --help

    return 0 if calibrate(sys.stdout) else 1

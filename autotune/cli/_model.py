"""``autotune model ...``: the performance model's own commands."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from autotune import model  # its cross-validation and out-of-sample reports load SciPy on first use


def cmd_calibrate(args: argparse.Namespace, argv: Sequence[str] = ()) -> int:
    if getattr(args, "out_of_sample", False):
        return 0 if model.outofsample_report(sys.stdout) else 1
    if getattr(args, "cross_validate", False):
        return 0 if model.crossval_report(sys.stdout) else 1

    return 0 if model.calibrate(sys.stdout) else 1

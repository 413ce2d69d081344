"""``autotune status``, ``export`` and ``space``: read a campaign and its storage, run nothing."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from autotune._yaml import plain_text
from autotune.campaign import Runtime, best_trial, export_claim, open_study, recommended_config, space_text, status_text
from autotune.cli._common import load
from autotune.cli._parsers import TABLE_ROWS
from autotune.errors import AutotuneError
from autotune.hints import flavour_problem, render


def cmd_status(args: argparse.Namespace, argv: Sequence[str] = ()) -> int:
    c = load(args)
    rt = Runtime.build(c)
    study = open_study(c, rt.space, create=False)
    print(status_text(rt, study, trials_table=args.trials_table, all_trials=args.all_trials, table_rows=TABLE_ROWS))
    return 0


def cmd_export(args: argparse.Namespace, argv: Sequence[str] = ()) -> int:
    c = load(args)
    rt = Runtime.build(c)
    study = open_study(c, rt.space, create=False)
    best = best_trial(study, c.objective.cost)  # two objectives: the trial the cost rule recommends
    if best is None:
        raise AutotuneError(f"study {c.study!r} has no completed trial yet: nothing to export")
    settings = rt.settings_for(*recommended_config(rt, study, best))  # only settings that differ and matter
    problem = flavour_problem(args.format, c.system.mpi_flavour, c.system.name)
    if problem:
        raise AutotuneError(f"--format {args.format}: {problem}")
    patterns = _file_patterns(args.files) if args.files is not None else list(c.app.hint_files)
    print(render(args.format, settings, mpi_flavour=c.system.mpi_flavour, patterns=patterns, path=args.path))
    print(f"autotune: {export_claim(study)}", file=sys.stderr)  # what was shown, beside (not inside) the pasted text
    return 0


def _file_patterns(text: str) -> list[str]:
    """``--files``: comma-separated file patterns; an empty pattern would name no file (or, in MPICH's
    syntax, every file), so ``''``, ``','`` or ``'a,,b'`` is refused."""
    patterns = [plain_text(f, "--files", "file patterns") for f in text.split(",")]
    if not all(p.strip() for p in patterns):
        raise AutotuneError(f"--files: {text!r} has an empty pattern (expected comma-separated file patterns, "
                            "e.g. '*.h5,ckpt*')")
    return patterns


def cmd_space(args: argparse.Namespace, argv: Sequence[str] = ()) -> int:
    print(space_text(Runtime.build(load(args))))
    return 0

"""``autotune status``, ``export`` and ``space``: read a campaign and its storage, run nothing."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from optuna.trial import TrialState

from autotune import trialrecord
from autotune._yaml import plain_text
from autotune.campaign import (
    Runtime,
    best_trial,
    confirmation_lines,
    counts,
    open_study,
    pending_lines,
    recent,
    recommended_config,
    summary_text,
    trials_in,
)
from autotune.cli._common import load
from autotune.cli._parsers import TABLE_ROWS
from autotune.errors import AutotuneError
from autotune.hints import flavour_problem, render
from autotune.measure import verdict_cell
from autotune.space import rules_of_thumb


def cmd_status(args: argparse.Namespace, argv: Sequence[str] = ()) -> int:
    c = load(args)
    rt = Runtime.build(c)
    study = open_study(c, rt.space, create=False)
    repeats = trialrecord.read_study(study).repeats
    if repeats is not None:  # what the campaign ran with (tune --repeats)
        rt.campaign = c = c.with_overrides(objective=replace(c.objective, repeats=repeats))
    n = counts(study)  # aggregate queries: a status of a 100,000-trial study reads a handful of trials
    running = trials_in(study, (TrialState.RUNNING,))
    shown = ", ".join(str(t.number) for t in running[:20]) + (f", ... ({len(running) - 20} more)" if len(running) > 20 else "")
    print(f"study {c.study} in {c.storage}")
    print(f"trials: {n.ran_complete + n.ran_failed} finished ({n.ran_complete} complete, {n.ran_failed} failed), "
          f"{len(running)} running" + (f" (trial {shown})" if running else "")
          + f", {n.states.get('WAITING', 0)} queued, {n.infeasible} broke a rule (not run"
          + (": " + ", ".join(f"{rule} {k}" for rule, k in sorted(n.rules.items())) if n.rules else "") + ")"
          + (f", {n.duplicates} repeated a completed configuration (not run)" if n.duplicates else "")
          + (f", {n.dropped} queued outside the space (dropped)" if n.dropped else ""))
    for line in pending_lines(rt, [t.number for t in running]):  # a job waiting in Slurm's queue, and why
        print(line)
    print(summary_text(rt, study))
    if args.trials_table:
        trials = study.get_trials(deepcopy=False) if args.all_trials else recent(study, TABLE_ROWS, tuple(TrialState))
        if len(trials) < n.total:
            print(f"the last {len(trials)} of {n.total} trials (--all-trials lists every one):")
        print("hints: per setting, ok (verified in effect), NOT IN EFFECT, not passed (never reached the program), "
              "unverified (nothing observable tells); `autotune status` prints the evidence for the best trial")
        for t in trials:
            rec = trialrecord.read(t)
            if rec.infeasible:
                print(f"{t.number:4d} not run: broke the rule(s) {', '.join(rec.infeasible)} {rt.config_of(t)}")
                continue
            reps = " ".join(f"{v:.4g}" if v is not None else "fail" for v in rec.repetitions)
            val = f"{t.values[0]:.4g}" if t.values else "-"
            cost = rec.cost or {}
            val += f" cost {cost['cost']:.4g}" if "cost" in cost else ""
            tag = " (default)" if rec.is_default else f" (rule of thumb {rec.rule_of_thumb})" if rec.rule_of_thumb else ""
            print(f"{t.number:4d} {t.state.name:8s} {val:>10s} [{reps}] {rt.config_of(t)}{tag}  hints: "
                  f"{verdict_cell(rec.verification) if rec.verification else _mismatch_cell(rec.hints_not_in_effect)}")
    return 0


def _mismatch_cell(mismatches: dict[str, Any]) -> str:
    """A trial recorded before per-setting verification: its mismatches only."""
    return "NOT IN EFFECT " + ",".join(sorted(mismatches)) if mismatches else "-"


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
    print(f"autotune: {_claim(study)}", file=sys.stderr)  # what was shown, beside (not inside) the pasted text
    return 0


def _claim(study: Any) -> str:
    """The exported recommendation's confirmed gain over the default and over the best rule of thumb, or that it
    is unconfirmed (the search's best of N)."""

    conf = trialrecord.read_study(study).confirmation
    if not conf:
        return ("unconfirmed: the search's best trial (its best of N is overstated); `autotune tune` to the end of "
                "the budget runs the confirmation (objective.confirm)")
    return confirmation_lines(conf, "")[-1]


def _file_patterns(text: str) -> list[str]:
    """``--files``: comma-separated file patterns; an empty pattern would name no file (or, in MPICH's
    syntax, every file), so ``''``, ``','`` or ``'a,,b'`` is refused."""
    patterns = [plain_text(f, "--files", "file patterns") for f in text.split(",")]
    if not all(p.strip() for p in patterns):
        raise AutotuneError(f"--files: {text!r} has an empty pattern (expected comma-separated file patterns, "
                            "e.g. '*.h5,ckpt*')")
    return patterns


def cmd_space(args: argparse.Namespace, argv: Sequence[str] = ()) -> int:
    rt = Runtime.build(load(args))
    for n in rt.space.notices:
        print(f"notice: {n}")
    print("\n".join(rt.space.describe()))
    print("rules: " + ", ".join(r.name for r in rt.space.rules))
    thumbs, notes = rules_of_thumb(rt.space)  # what a campaign runs right after the default
    print("rules of thumb (run right after the default):" if thumbs else "rules of thumb: none differs from the default here")
    for b in thumbs:
        changed = {k: v for k, v in b.config.items() if rt.space.default_config().get(k) != v}
        print(f"  {b.name}: {', '.join(f'{k}={v}' for k, v in sorted(changed.items()))}  ({b.source})")
    for line in notes:
        print(f"  note: {line}")
    return 0

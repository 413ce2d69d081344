"""Options shared by subcommands and loading a campaign with them applied."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from autotune.errors import AutotuneError
from autotune.execute import executor_names
from autotune.units import parse_duration


def lfs_path(value: str) -> str:
    """``--path`` (argparse type): the directory ``lfs setstripe`` is given; one starting with '-' would be read
    as an option of lfs (``--path=--pool=evil``), an empty one means nothing."""
    if not value.strip() or value.startswith("-"):
        raise argparse.ArgumentTypeError(f"{value!r} is not a directory path (write ./{value} for a name starting "
                                         "with '-')" if value.strip() else "an empty path")
    return value


def add_overrides(p: argparse.ArgumentParser) -> None:
    p.add_argument("--study", help="study name (default: the campaign's name)")
    p.add_argument("--storage", help="Optuna storage URL (default: sqlite:///WORKDIR/optuna.db)")
    p.add_argument("--workdir", help="work directory (default: autotune-runs/NAME)")
    p.add_argument("--exchange-rate", metavar="X", help="objective.cost: 1 BB node-hour = X node-hours (overrides "
                   "the campaign's; a report or export recommends under it)")
    p.add_argument("--within", metavar="PCT", help="objective.cost: recommend the cheapest trial within PCT "
                   "(e.g. 10%%) of the fastest")


def add_tune_overrides(p: argparse.ArgumentParser) -> None:
    add_overrides(p)
    p.add_argument("--trials", type=int, help="total trials of the campaign (running again resumes up to this)")
    p.add_argument("--repeats", type=int,
                   help="repetitions per configuration, aggregated by objective.aggregate (default: best of N on a "
                        "shared parallel file system or burst buffer, median of N on node-local storage)")
    p.add_argument("--budget", help="wall-time budget, e.g. 8h or 45m: stops between trials, resumable")
    p.add_argument("--tracking-uri", help="MLflow tracking URI (default: sqlite:///WORKDIR/mlflow.db)")
    p.add_argument("--no-tracking", action="store_true", help="do not log to MLflow")
    p.add_argument("--executor", choices=executor_names(), help="where trials run (default: serial)")


def load(args: argparse.Namespace) -> Any:
    """The campaign file named by ``args.campaign`` with the command line's overrides applied."""
    from autotune.campaign import (  # lazy: Optuna stack, fast --help
        check_study_name,
        load_campaign,
        nonempty_path,
        repeats_value,
        storage_url,
        tracking_uri,
        trials_value,
        workdir_path,
    )

    c = load_campaign(args.campaign)
    kw: dict[str, Any] = {}
    if getattr(args, "workdir", None) is not None:
        kw["workdir"] = workdir_path(Path(nonempty_path(args.workdir, "--workdir")).expanduser().resolve(), "--workdir")
    if getattr(args, "storage", None) is not None:
        kw["storage_url"] = storage_url(args.storage, getattr(args, "storage_from", "--storage"))
    if getattr(args, "study", None) is not None:
        kw["study"] = check_study_name(args.study, "--study")
    budget = c.budget
    if getattr(args, "trials", None) is not None:
        budget = replace(budget, trials=trials_value(args.trials, "--trials"))
    if getattr(args, "budget", None) is not None:
        budget = replace(budget, trials=budget.trials if args.trials is not None else None,
                         wall_time=parse_duration(args.budget, "--budget"))
    kw["budget"] = budget
    if getattr(args, "repeats", None) is not None:
        kw["objective"] = replace(c.objective, repeats=repeats_value(args.repeats, "--repeats"))
    tracking = dict(c.tracking)
    if getattr(args, "tracking_uri", None) is not None:
        tracking["uri"] = tracking_uri(args.tracking_uri, "--tracking-uri")
    if getattr(args, "no_tracking", False):
        tracking["enabled"] = False
    kw["tracking"] = tracking
    cost = _cost_override(c, args)
    if cost is not None:
        kw["objective"] = replace(kw.get("objective", c.objective), cost=cost)
    if getattr(args, "executor", None):
        kw["executor"] = {**c.executor, "name": args.executor}
    return c.with_overrides(**kw)


def _cost_override(c: Any, args: argparse.Namespace) -> Any:
    """``--exchange-rate`` / ``--within`` applied to the campaign's ``objective.cost`` (None: neither given)."""
    from autotune.campaign import rate_value, within_value  # lazy: Optuna stack, fast --help

    rate, within = getattr(args, "exchange_rate", None), getattr(args, "within", None)
    if rate is None and within is None:
        return None
    if c.objective.cost is None:
        flag = "--exchange-rate" if rate is not None else "--within"
        raise AutotuneError(f"{flag}: campaign {c.name!r} has no objective.cost (one objective: nothing to trade off)")
    kw: dict[str, Any] = {}
    if rate is not None:
        try:
            value: Any = float(rate)
        except ValueError:
            value = rate
        kw.update(exchange_rate=rate_value(value, "--exchange-rate"), rate_from="command line")
    if within is not None:
        try:
            w: Any = float(within)
        except ValueError:
            w = within
        kw["within"] = within_value(w, "--within")
    return replace(c.objective.cost, **kw)


def warn_stack(rt: Any, timeout: float | None = None, *, strict: bool = True) -> None:
    """The campaign's system profile against the stack detected here: one stderr line per contradiction
    (``campaign.check_stack`` raises where the results would be wrong: exit 2; not with ``strict=False``)."""
    from autotune.campaign import check_stack  # lazy: Optuna stack, fast --help

    for line in check_stack(rt.campaign, rt.space, timeout=timeout, strict=strict).lines:
        print(f"autotune: warning: {line}", file=sys.stderr)


def print_model_verdict(rt: Any) -> None:
    """One line when the performance model cannot judge the campaign (its first picks are not used), with why."""
    from autotune.optimize import model_line, model_start  # lazy: Optuna stack, fast --help

    why = model_start(rt.campaign, rt.space)[1]
    if why:
        print(model_line(why))


class _DialectHelp(str):
    """``--format``'s help, naming the registered dialects only when help is printed: the registry lives with
    the hints renderers, whose import pulls in the space machinery (Optuna, NumPy), which building the parser
    for a job's ``ask`` or ``hints`` must not pay for."""

    def __mod__(self, params: Any) -> str:
        from autotune.hints import DIALECTS  # lazy: Optuna stack, fast --help

        return f"{', '.join(DIALECTS.names())} (default: env)" % params


def dialect_help() -> str:
    return _DialectHelp("the hints dialect (default: env)")


class DialectChoices:
    """``--format``'s choices, the registered dialects, read only when argparse checks a value or prints them
    (building the parser must not import the hints renderers: see ``_DialectHelp``)."""

    def _names(self) -> list[str]:
        from autotune.hints import DIALECTS  # lazy: Optuna stack, fast --help

        return DIALECTS.names()

    def __contains__(self, value: object) -> bool:
        return value in self._names()

    def __iter__(self) -> Any:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())

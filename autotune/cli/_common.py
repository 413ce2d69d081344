"""The handlers' shared steps: loading a campaign with the command line's overrides applied, the stack check
and the model's verdict."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from autotune.campaign import (
    check_stack,
    check_study_name,
    load_campaign,
    nonempty_path,
    rate_value,
    repeats_value,
    storage_url,
    tracking_uri,
    trials_value,
    within_value,
    workdir_path,
)
from autotune.errors import AutotuneError
from autotune.optimize import model_line, model_start
from autotune.units import parse_duration


def load(args: argparse.Namespace) -> Any:
    """The campaign file named by ``args.campaign`` with the command line's overrides applied."""
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
    for line in check_stack(rt.campaign, rt.space, timeout=timeout, strict=strict).lines:
        print(f"autotune: warning: {line}", file=sys.stderr)


def print_model_verdict(rt: Any) -> None:
    """One line when the performance model cannot judge the campaign (its first picks are not used), with why."""
    why = model_start(rt.campaign, rt.space)[1]
    if why:
        print(model_line(why))

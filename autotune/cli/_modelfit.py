"""``autotune model fit CAMPAIGN...``: the profile's model constants fitted to a site's real runs.

Reads every completed trial of the campaigns' Optuna studies (the value is the campaign's objective.aggregate
of N: best of N on a shared parallel file system or burst buffer, median of N on node-local storage unless the
campaign names another; the default trial ran the system's defaults), fits the constants of the
target's kind (bounded to x1/20..x20 of the profile's values, regularised toward them) and writes a
copy of the profile with the fitted values under the file system's ``model:`` and each constant's
uncertainty as a comment. A campaign can then use it: ``system: ./mysite-calibrated.yaml``.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from autotune import trialrecord
from autotune.errors import ConfigError


def measurements_of(paths: Sequence[str], storage: str | None = None) -> tuple[Any, Any, list[Any]]:
    """(system, file system, measurements) of the campaigns; they must share one system and target."""
    import optuna
    from optuna.trial import TrialState

    from autotune.campaign import load_campaign
    from autotune.campaign._study import make_storage
    from autotune.model import MeasuredRun

    system = fs = None
    runs: list[MeasuredRun] = []
    for path in paths:
        c = load_campaign(path)
        if storage:
            c = c.with_overrides(storage_url=storage)
        if system is not None and (c.system.name, c.fs.name) != (system.name, fs.name):  # type: ignore[union-attr]
            raise ConfigError(f"{path}: system {c.system.name}/{c.fs.name} differs from "
                              f"{system.name}/{fs.name} of the first campaign")  # type: ignore[union-attr]
        system, fs = system or c.system, fs or c.fs
        try:
            study = optuna.load_study(study_name=c.study, storage=make_storage(c.storage))
        except KeyError:
            raise ConfigError(f"{path}: study {c.study!r} not found in {c.storage} (run `autotune tune` first)") from None
        space = c.space.bind(c.system, c.fs, c.app.pattern)
        for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
            v = t.values[0] if t.values else None  # objective 0 (the metric), one or two objectives
            if v is None or not math.isfinite(v) or v <= 0 or trialrecord.read(t).infeasible:
                continue
            cfg = dict(space.fixed) if trialrecord.read(t).is_default else space.from_optuna(t.params)
            runs.append(MeasuredRun(c.app.pattern, cfg, float(v), c.objective.metric))
    if system is None or fs is None or not runs:
        raise ConfigError("model fit: no completed trials with a positive value in the campaign(s)")
    return system, fs, runs


def calibrated_profile(system: Any, fs: Any, values: dict[str, float], header: str) -> str:
    """The profile's YAML with ``values`` under the file system's ``model:``; ``header`` as comments."""
    src = Path(system.source)
    data = yaml.safe_load(src.read_text(encoding="utf-8")) if src.is_file() else None
    if not isinstance(data, dict):
        raise ConfigError(f"model fit: cannot re-read the profile {system.source!r}")
    entry = data["filesystems"][fs.name]
    model = dict(entry.get("model") or {})
    model.update({k: float(f"{v:.6g}") for k, v in values.items()})
    entry["model"] = model
    data["name"] = f"{system.name}-calibrated"
    data["description"] = f"{data.get('description', system.name)} (model constants fitted to measured runs)"
    body = yaml.safe_dump(data, sort_keys=False, default_flow_style=False)
    return "".join(f"# {line}\n" for line in header.splitlines()) + body


def run_fit(args: argparse.Namespace) -> int:
    from autotune.model import fit_constants
    from autotune.model._fit import FIT_NAMES, PRIOR_WEIGHT, SPAN

    system, fs, runs = measurements_of(args.campaigns, args.storage)
    names = tuple(args.constants.split(",")) if args.constants else FIT_NAMES[fs.kind]
    fit = fit_constants(runs, system, names, fs.name, bounds=(1 / SPAN, SPAN), prior_weight=PRIOR_WEIGHT)
    lines = [f"autotune model fit: {len(runs)} measured configuration(s) on {system.name}/{fs.name};"
             f" rms log error {fit.rms_log_error:.3f} (x{math.exp(fit.rms_log_error):.3f})",
             f"{'constant':<16} {'profile':>12} {'fitted':>12} {'1-sigma factor':>15}"]
    for n in names:
        unc = fit.uncertainty.get(n, math.inf)
        lines.append(f"{n:<16} {fit.start[n]:>12.4g} {fit.values[n]:>12.4g} "
                     + (f"{'x' + format(unc, '.3g'):>15}" if math.isfinite(unc) else f"{'undetermined':>15}"))
    text = "\n".join(lines)
    sys.stdout.write(text + "\n")
    if args.output:
        Path(args.output).write_text(calibrated_profile(system, fs, fit.values, text), encoding="utf-8")
        sys.stdout.write(f"calibrated profile written to {args.output} (use: system: {args.output})\n")
    return 0


def register(msub: Any) -> None:
    f = msub.add_parser("fit", help="fit the profile's model constants to the campaigns' measured trials")
    f.add_argument("campaigns", nargs="+", help="campaign YAML file(s) whose studies hold real measurements")
    f.add_argument("-o", "--output", help="write the calibrated profile here (YAML)")
    f.add_argument("--constants", help="comma-separated constants to fit (default: by the target's kind)")
    f.add_argument("--storage", help="Optuna storage URL (default: each campaign's)")
    f.set_defaults(run=lambda a, argv=(): run_fit(a))

"""The profile's model constants fitted to a site's real runs (``autotune model fit CAMPAIGN...``).

Reads every completed trial of the campaigns' Optuna studies (the value is the campaign's objective.aggregate
of N: best of N on a shared parallel file system or burst buffer, median of N on node-local storage unless the
campaign names another; the default trial ran the system's defaults), fits the constants of the
target's kind (bounded to x1/20..x20 of the profile's values, regularised toward them) and writes a
copy of the profile with the fitted values under the file system's ``model:`` and each constant's
uncertainty as a comment. A campaign can then use it: ``system: ./mysite-calibrated.yaml``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import optuna
import yaml
from optuna.trial import TrialState

from autotune import trialrecord
from autotune.campaign.file import load_campaign, storage_url
from autotune.campaign.study._study import make_storage
from autotune.errors import ConfigError
from autotune.model import FIT_NAMES, PRIOR_WEIGHT, SPAN, FitResult, MeasuredRun, fit_constants, judged_metric
from autotune.systems import FileSystem, SystemProfile


@dataclass(frozen=True)
class SiteFit:
    """The constants fitted to the campaigns' measured runs on one system and target; ``text`` is the table."""

    system: SystemProfile
    fs: FileSystem
    runs: list[MeasuredRun]
    names: tuple[str, ...]
    fit: FitResult

    @property
    def text(self) -> str:
        fit = self.fit
        lines = [f"autotune model fit: {len(self.runs)} measured configuration(s) on {self.system.name}/{self.fs.name};"
                 f" rms log error {fit.rms_log_error:.3f} (x{math.exp(fit.rms_log_error):.3f})",
                 f"{'constant':<16} {'profile':>12} {'fitted':>12} {'1-sigma factor':>15}"]
        for n in self.names:
            unc = fit.uncertainty.get(n, math.inf)
            lines.append(f"{n:<16} {fit.start[n]:>12.4g} {fit.values[n]:>12.4g} "
                         + (f"{'x' + format(unc, '.3g'):>15}" if math.isfinite(unc) else f"{'undetermined':>15}"))
        return "\n".join(lines)

    def write_profile(self, path: str | Path) -> None:
        """A copy of the profile with the fitted values (``system: PATH`` in a campaign uses it)."""
        Path(path).write_text(calibrated_profile(self.system, self.fs, self.fit.values, self.text), encoding="utf-8")


def fit_campaigns(paths: Sequence[str | Path], storage: str | None = None,
                  constants: Sequence[str] | None = None) -> SiteFit:
    """Fit ``constants`` (default: those of the target's kind) to the completed trials of the campaigns' studies
    (``storage`` overrides each campaign's), bounded to x1/SPAN..xSPAN of the profile's values."""
    system, fs, runs = measurements_of(paths, storage)
    names = tuple(constants) if constants else FIT_NAMES[fs.kind]
    fit = fit_constants(runs, system, names, fs.name, bounds=(1 / SPAN, SPAN), prior_weight=PRIOR_WEIGHT)
    return SiteFit(system, fs, runs, tuple(fit.values), fit)  # a constant the profile sets to 0 is not fitted


def measurements_of(paths: Sequence[str | Path],
                    storage: str | None = None) -> tuple[SystemProfile, FileSystem, list[MeasuredRun]]:
    """(system, file system, measurements) of the campaigns; they must share one system and target."""


    system: SystemProfile | None = None
    fs: FileSystem | None = None
    runs: list[MeasuredRun] = []
    for path in paths:
        c = load_campaign(path)
        if storage is not None:
            c = c.with_overrides(storage_url=storage_url(storage, "--storage"))
        if system is not None and fs is not None and (c.system.name, c.fs.name) != (system.name, fs.name):
            raise ConfigError(f"{path}: system {c.system.name}/{c.fs.name} differs from "
                              f"{system.name}/{fs.name} of the first campaign")
        system, fs = system or c.system, fs or c.fs
        try:
            study = optuna.load_study(study_name=c.study, storage=make_storage(c.storage, create=False))  # reads only
        except KeyError:
            raise ConfigError(f"{path}: study {c.study!r} not found in {c.storage} (run `autotune tune` first)") from None
        space = c.space.bind(c.system, c.fs, c.app.pattern)
        metric = judged_metric(c.objective.metric, c.objective.kind, c.app.pattern.phases)[0] or c.objective.metric
        for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
            v = t.values[0] if t.values else None  # objective 0 (the metric), one or two objectives
            if v is None or not math.isfinite(v) or v <= 0 or trialrecord.read(t).infeasible:
                continue
            cfg = dict(space.fixed) if trialrecord.read(t).is_default else space.from_optuna(t.params)
            runs.append(MeasuredRun(c.app.pattern, cfg, float(v), metric))
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

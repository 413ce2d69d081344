"""Build the report of several campaigns from their storages: files in DIR, and an MLflow comparison run."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import optuna

from autotune._safefile import make_dirs, write_file
from autotune.campaign import Runtime
from autotune.report._data import bills_bb, front_lines, report_data
from autotune.report._figures import TargetFigures, target_figures, unique_labels
from autotune.report._html import render_html
from autotune.report._markdown import render_markdown
from autotune.report._mlflow import log_comparison
from autotune.report._plots import all_plots
from autotune.report._stats import Comparison, compare


@dataclass
class Report:
    """What was written: the directory, the data, the comparison and the MLflow run (if logged)."""

    directory: Path
    data: dict[str, Any]
    comparison: Comparison
    figures: list[TargetFigures]
    mlflow_run: str | None = None

    @property
    def html(self) -> Path:
        return self.directory / "report.html"

    @property
    def markdown(self) -> Path:
        return self.directory / "report.md"

    def text(self) -> str:
        """A few lines for the terminal (and the notification hook)."""
        lines = [self.data["recommendation"]]
        for t in self.data["targets"]:
            best = f"{t['best_value']:.4g}" if "best_value" in t else "-"
            default = f"{t['default_value']:.4g}" if "default_value" in t else "-"
            lines.append(f"  {t['label']}: best {best} {t['unit']} (default {default}), {t['trials_run']} trials, "
                         f"{t['node_hours']:.3g} node-hours" + (f", {t['bb_node_hours']:.3g} BB node-hours"
                                                                   if bills_bb(t) else ""))
        if self.data.get("cost"):
            lines += [f"  {ln}" for ln in front_lines(self.data)]
        lines.append(f"report: {self.html}")
        return "\n".join(lines)


def title_of(figs: list[TargetFigures]) -> str:
    apps = sorted({f.app for f in figs})
    return f"{', '.join(apps)}: " + " vs ".join(f.label for f in figs)


def build_report(pairs: list[tuple[Runtime, optuna.Study]], directory: Path, *, tracking_uri: str | None = None,
                 artifact_root: Path | None = None) -> Report:
    """Compute every figure from the storages, write report.{html,md,json} and figures/, log to MLflow."""
    figs = [target_figures(rt, study) for rt, study in pairs]
    unique_labels(figs)
    cmp = compare(figs)
    data = report_data(cmp, figs)
    plots = all_plots(cmp, figs)
    title = title_of(figs)
    directory.mkdir(parents=True, exist_ok=True)
    make_dirs(directory / "figures")
    for name, svg in plots.items():
        write_file(directory / "figures" / f"{name}.svg", svg)
    write_file(directory / "report.json", json.dumps(data, indent=2, default=str) + "\n")
    write_file(directory / "report.md", render_markdown(data, plots, title))
    write_file(directory / "report.html", render_html(data, plots, title))
    report = Report(directory, data, cmp, figs)
    if tracking_uri:
        report.mlflow_run = log_comparison(data, directory, tracking_uri, artifact_root or directory / "mlartifacts")
    return report

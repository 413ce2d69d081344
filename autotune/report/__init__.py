"""Reports of campaigns: per-target figures from the Optuna storage, a side-by-side comparison with
bootstrap intervals, plots (inline SVG), a self-contained HTML file, a Markdown summary, an MLflow run."""

from autotune.report._build import Report, build_report
from autotune.report._data import report_data, target_data
from autotune.report._figures import TargetFigures, TrialRow, importance, target_figures
from autotune.report._plots import PLOTS, Plot
from autotune.report._run import CompareResult, compare_campaigns, open_all, run_campaigns
from autotune.report._stats import Comparison, Versus, advantage, bootstrap_value, compare
from autotune.tracking import check_notify, notify, parse_notify  # the hook `compare` runs, as `tune` does

__all__ = [
    "PLOTS", "CompareResult", "Comparison", "Plot", "Report", "TargetFigures", "TrialRow", "Versus", "advantage",
    "bootstrap_value", "build_report", "check_notify", "compare", "compare_campaigns", "importance", "notify",
    "open_all", "parse_notify", "report_data", "run_campaigns", "target_data", "target_figures",
]

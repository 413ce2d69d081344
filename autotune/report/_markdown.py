"""The Markdown summary of a comparison (report.md)."""

from __future__ import annotations

from typing import Any

from autotune.measure import aggregate_label
from autotune.report._data import bills_bb, config_lines, confirmation_text, fmt_number, front_lines, gain_cell, versus_text


def _target(t: dict[str, Any]) -> list[str]:
    u = t["unit"]
    out = [f"### {t['label']} — campaign `{t['campaign']}`", "",
           f"- trials run: {t['trials_run']} ({t['trials_failed']} failed), each the "
           f"{aggregate_label(t.get('aggregate', 'median'), t['repeats'])} repetitions",
           f"- storage: `{t['storage']}` (study `{t['study']}`)"]
    if t.get("tracking_uri"):
        out.append(f"- MLflow: `{t['tracking_uri']}`")
    if t.get("production_jobs"):
        out.append(f"- production jobs as trials (`autotune ask`/`tell`): {t['production_jobs']}, "
                   f"{t['production_explored']} of them exploratory")
    if "best_value" not in t:
        return [*out, "- no completed trial yet", ""]
    reps = ", ".join(fmt_number(v) if v is not None else "failed" for v in t["best_repetitions"])
    lo, hi = t["best_interval"]
    out += [f"- **best**: {fmt_number(t['best_value'], u)} (trial {t['best_trial']}"
            + (", the default configuration" if t["best_is_default"] else "") + ")",
            f"  - repetitions: {reps}; spread {t['best_spread'] * 100:.1f}%; "
            f"95% bootstrap interval {fmt_number(lo)} – {fmt_number(hi)} {u}",
            f"- default configuration: {fmt_number(t.get('default_value'), u)}",
            f"- speedup over default: {fmt_number(t.get('speedup_over_default'))}x",
            f"- cost: {t['node_hours']:.4g} node-hours ({t['nodes']} node(s), {t['run_seconds']:.4g} s of runs)"
            + (f"; {t['bb_node_hours']:.4g} BB node-hours" if bills_bb(t) else "")]
    if t["importance"]:
        out.append("- parameter importance: " + ", ".join(f"{k} {v:.2f}" for k, v in t["importance"].items()))
    out += ["", "Confirmation:", "", "```", *confirmation_text(t), "```"]
    out += ["", "Best configuration:", "", "```", *config_lines(t["best_config"]), "```", "",
            "Hints to paste into the job script:", "", "```",
            t["hints_text"] if not t["best_is_default"] else "# the system's defaults are best: set nothing",
            "```", ""]
    return out


def render_markdown(data: dict[str, Any], plots: dict[str, str], title: str) -> str:
    """The summary: the recommendation, the side-by-side table, each target, the plot files."""
    u = data["unit"]
    lines = [f"# {title}", "", f"**Recommendation.** {data['recommendation']}", "",
             "| target | best | repetitions spread | default | speedup (search's best) | confirmed gain (95% interval) "
             "| node-hours | BB node-hours |",
             "|---|---|---|---|---|---|---|---|"]
    for t in data["targets"]:
        spread = f"{t['best_spread'] * 100:.1f}%" if "best_spread" in t else "–"
        lines.append(f"| {t['label']} | {fmt_number(t.get('best_value'), u)} | {spread} "
                     f"| {fmt_number(t.get('default_value'), u)} | {fmt_number(t.get('speedup_over_default'))}x "
                     f"| {gain_cell(t)} | {t['node_hours']:.4g} | "
                     + (f"{t['bb_node_hours']:.4g} |" if bills_bb(t) else "– |"))
    lines.append("")
    if data["versus"]:
        maximize = data["direction"] == "maximize"
        lines += ["## Side by side", "", f"Winner: **{data['winner']}**. Jitter between repetitions "
                  f"(spread of the best trials): {data['jitter'] * 100:.1f}%; the margin is "
                  + ("larger than the jitter." if data["significant"] else "**not** clearly larger than the jitter."),
                  ""]
        lines += [f"- {versus_text(v, maximize)}" for v in data["versus"]]
        lines.append("")
    if data.get("cost"):
        lines += ["## Cost (objective.cost)", "", "```", *front_lines(data), "```", ""]
    lines += ["## Targets", ""]
    for t in data["targets"]:
        lines += _target(t)
    lines += ["## Plots", "", *[f"- [{name}](figures/{name}.svg)" for name in plots], "",
              "The full report, with the plots inline, is `report.html`; the numbers are in `report.json`.", ""]
    return "\n".join(lines)


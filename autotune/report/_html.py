"""The self-contained HTML report: inline CSS and inline SVG plots; no script, no network, opens from disk."""

from __future__ import annotations

from html import escape
from typing import Any

from autotune.measure import aggregate_label
from autotune.report._data import bills_bb, config_lines, confirmation_text, fmt_number, front_lines, gain_cell, versus_text
from autotune.report._plots import caption

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:24px auto;max-width:1100px;
color:#222;line-height:1.4;padding:0 16px}
h1{font-size:1.5em}h2{border-bottom:1px solid #ddd;padding-bottom:4px;margin-top:32px}
.rec{background:#eef6ee;border-left:5px solid #2ca02c;padding:10px 14px;font-size:1.05em}
.rec.weak{background:#fff6e5;border-left-color:#ff7f0e}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}
th{background:#f4f4f4}pre{background:#f7f7f7;padding:8px;overflow-x:auto;font-size:.9em}
.plot{margin:12px 0;padding:6px;border:1px solid #eee}.plot svg{max-width:100%;height:auto}
.targets{display:flex;flex-wrap:wrap;gap:16px}.target{flex:1 1 460px;border:1px solid #ddd;padding:8px 12px}
small{color:#666}
"""


def _escaped(x: Any) -> str:
    return escape(str(x))


def _table(data: dict[str, Any]) -> str:
    u = data["unit"]
    head = ("target", "best trial (" + " / ".join(sorted({aggregate_label(t.get("aggregate", "median"))
                                                          for t in data["targets"]}) or ["median of N"]) + ")",
            "spread of repetitions", "default", "speedup over default (search's best)",
            "confirmed gain over default (95% interval)", "node-hours", "BB node-hours")
    rows = []
    for t in data["targets"]:
        spread = f"{t['best_spread'] * 100:.1f}%" if "best_spread" in t else "–"
        bb = f"{t['bb_node_hours']:.4g}" if bills_bb(t) else "–"
        cells = (t["label"], fmt_number(t.get("best_value"), u), spread, fmt_number(t.get("default_value"), u),
                 f"{fmt_number(t.get('speedup_over_default'))}x", gain_cell(t), f"{t['node_hours']:.4g}", bb)
        cls = ' style="font-weight:bold"' if t["label"] == data["winner"] else ""
        rows.append(f"<tr{cls}>" + "".join(f"<td>{_escaped(c)}</td>" for c in cells) + "</tr>")
    return ("<table><tr>" + "".join(f"<th>{_escaped(h)}</th>" for h in head) + "</tr>" + "".join(rows) + "</table>")


def _target(t: dict[str, Any]) -> str:
    u = t["unit"]
    parts = [f"<div class='target'><h3>{_escaped(t['label'])}</h3>",
             f"<small>campaign {_escaped(t['campaign'])}, study {_escaped(t['study'])} in {_escaped(t['storage'])}</small>",
             f"<p>{t['trials_run']} trials run ({t['trials_failed']} failed), each the "
             f"{aggregate_label(t.get('aggregate', 'median'), t['repeats'])} repetitions.</p>"]
    if "best_value" not in t:
        return "".join(parts) + "<p>No completed trial yet.</p></div>"
    reps = ", ".join(fmt_number(v) if v is not None else "failed" for v in t["best_repetitions"])
    lo, hi = t["best_interval"]
    parts.append(
        "<table>"
        f"<tr><th>best</th><td>{_escaped(fmt_number(t['best_value'], u))} (trial {t['best_trial']}"
        f"{', the default configuration' if t['best_is_default'] else ''})</td></tr>"
        f"<tr><th>repetitions</th><td>{_escaped(reps)} (spread {t['best_spread'] * 100:.1f}%, 95% bootstrap interval "
        f"{_escaped(fmt_number(lo))} – {_escaped(fmt_number(hi))})</td></tr>"
        f"<tr><th>default configuration</th><td>{_escaped(fmt_number(t.get('default_value'), u))}</td></tr>"
        f"<tr><th>speedup over default</th><td>{_escaped(fmt_number(t.get('speedup_over_default')))}x</td></tr>"
        f"<tr><th>cost</th><td>{t['node_hours']:.4g} node-hours ({t['nodes']} node(s) × {t['run_seconds']:.4g} s)"
        + (f"; {t['bb_node_hours']:.4g} BB node-hours" if bills_bb(t) else "") + "</td></tr></table>")
    parts.append("<p>Confirmation:</p><pre>" + _escaped("\n".join(confirmation_text(t))) + "</pre>")
    parts.append("<p>Best configuration:</p><pre>" + _escaped("\n".join(config_lines(t["best_config"]))) + "</pre>")
    hints = t["hints_text"] if not t["best_is_default"] else "# the system's defaults are best: set nothing"
    parts.append("<p>Hints for the job script:</p><pre>" + _escaped(hints) + "</pre></div>")
    return "".join(parts)


def render_html(data: dict[str, Any], plots: dict[str, str], title: str) -> str:
    """The whole report as one HTML document (plots as inline SVG)."""
    maximize = data["direction"] == "maximize"
    rec_cls = "rec" if data["significant"] else "rec weak"
    body = [f"<h1>{_escaped(title)}</h1>", f"<p class='{rec_cls}'><b>Recommendation.</b> {_escaped(data['recommendation'])}</p>",
            "<h2>Side by side</h2>", _table(data)]
    if data["versus"]:
        body.append(f"<p>Winner: <b>{_escaped(data['winner'])}</b>. Jitter between repetitions (spread of the best trials): "
                    f"{data['jitter'] * 100:.1f}% — the margin is "
                    + ("larger than the jitter." if data["significant"]
                       else "<b>not</b> clearly larger than the jitter.")
                    + "</p><ul>")
        for v in data["versus"]:
            body.append(f"<li>{_escaped(versus_text(v, maximize))}</li>")
        body.append("</ul>")
    if data.get("cost"):
        body.append("<h2>Cost (objective.cost)</h2><pre>" + _escaped("\n".join(front_lines(data))) + "</pre>")
    body.append("<h2>Plots</h2>")
    for name, svg in plots.items():
        body.append(f"<div class='plot' id='plot-{_escaped(name)}'><h3>{_escaped(caption(name))}</h3>{svg}</div>")
    body.append("<h2>Targets</h2><div class='targets'>" + "".join(_target(t) for t in data["targets"]) + "</div>")
    body.append("<p><small>Generated by autotune from the campaigns' Optuna storages; regenerate with "
                "<code>autotune report</code>. Numbers also in report.json and report.md.</small></p>")
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            f"<title>{_escaped(title)}</title><style>{CSS}</style></head><body>" + "\n".join(body) + "</body></html>\n")

"""Tables of the surface evaluation (experiments/evaluation/surface_eval.py): recomputed from its JSON records."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np

COLD = ("tpe", "gp", "cmaes", "random", "ga")


def _pct(x: float) -> str:
    return "-" if x != x else f"{x:.1%}"


def _med(xs: list[float]) -> float:
    return float(np.median(xs)) if xs else float("nan")


def _mean(xs: list[float]) -> float:
    return float(np.mean(xs)) if xs else float("nan")


def method_table(records: list[dict[str, Any]], trials: int) -> dict[tuple[str, str], dict[str, float]]:
    """Per (kind, method): median regret at 5/10/20, median trials and benchmark seconds to 95%
    (a campaign that never got within 5% counts as ``trials + 1`` trials and its total seconds)."""
    by: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        by[(r["kind"], r["method"])].append(r)
        by[("all", r["method"])].append(r)
    out = {}
    for key, recs in by.items():
        row = {f"regret@{k}": _med([r["regret"][str(k)] for r in recs if str(k) in r["regret"]]) for k in (5, 10, 20)}
        row["trials_to_95"] = _med([r["trials_to_95"] or trials + 1 for r in recs])
        row["seconds_to_95"] = _med([r["bench_seconds_to_95"] if r["trials_to_95"] else r["bench_seconds"] for r in recs])
        row["reached"] = sum(1 for r in recs if r["trials_to_95"]) / len(recs)
        row["campaigns"] = len(recs)
        for k in (10, 20):
            row[f"confirmed@{k}"] = _med([r["confirmed_regret"][str(k)] for r in recs if str(k) in r.get("confirmed_regret", {})])
        out[key] = row
    return out


def per_truth(records: list[dict[str, Any]], trials: int) -> dict[str, dict[str, dict[str, float]]]:
    by: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for r in records:
        by[r["truth"]][r["method"]].append(r)
    return {t: {m: {"regret@10": _med([r["regret"].get("10", np.nan) for r in rs]),
                    "regret@20": _med([r["regret"].get("20", np.nan) for r in rs]),
                    "trials_to_95": _med([r["trials_to_95"] or trials + 1 for r in rs])}
                for m, rs in ms.items()} for t, ms in sorted(by.items())}


def targets(table: dict[tuple[str, str], dict[str, float]], kind: str) -> list[str]:
    """The targets for ``autotune`` on one kind of truth, each met or not with the figures."""
    a = table.get((kind, "autotune"))
    if a is None:
        return []
    lines = []
    ok10, ok20 = a["regret@10"] <= 0.05, a["regret@20"] <= 0.02
    lines.append(f"median regret after 10 trials {a['regret@10']:.1%} (target <= 5%): {'met' if ok10 else 'NOT met'}")
    lines.append(f"median regret after 20 trials {a['regret@20']:.1%} (target <= 2%): {'met' if ok20 else 'NOT met'}")
    rnd = table.get((kind, "random"))
    if rnd:
        ok = a["trials_to_95"] <= rnd["trials_to_95"] / 3
        lines.append(f"trials to 95%: {a['trials_to_95']:.1f} vs random {rnd['trials_to_95']:.1f} "
                     f"(target <= 1/3 of random): {'met' if ok else 'NOT met'}")
    cold = [(table[(kind, m)]["trials_to_95"], m) for m in COLD if (kind, m) in table]
    if cold:
        best, m = min(cold)
        ok = a["trials_to_95"] <= best + 2
        lines.append(f"trials to 95%: {a['trials_to_95']:.1f} vs best cold method {m} {best:.1f} "
                     f"(target: at most 2 behind): {'met' if ok else 'NOT met'}")
    return lines


def physical_lines(records: list[dict[str, Any]], trials: int) -> list[str]:
    """The real surfaces scored by physical configuration: twins (configurations that differ only in settings
    that cannot act) are one configuration whose runs are pooled, so the truth no longer tells them apart by
    noise; the same campaigns and picks as the table above, and the same targets."""
    by: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        if r["kind"] == "real" and "physical_regret" in r:
            by[r["method"]].append(r)
    if not by:
        return []
    table: dict[tuple[str, str], dict[str, float]] = {}
    for m, recs in by.items():
        row = {f"regret@{k}": _med([r["physical_regret"][str(k)] for r in recs if str(k) in r["physical_regret"]])
               for k in (5, 10, 20)}
        row["trials_to_95"] = _med([r["physical_trials_to_95"] or trials + 1 for r in recs])
        row["reached"] = sum(1 for r in recs if r["physical_trials_to_95"]) / len(recs)
        table[("real", m)] = row
    out = ["", "### real, scored by physical configuration (twins pooled in the truth)", "",
           "| method | regret@5 | regret@10 | regret@20 | trials to 95% | reached 95% |", "|---|---|---|---|---|---|"]
    for (_, m), r in sorted(table.items()):
        out.append(f"| {m} | {r['regret@5']:.1%} | {r['regret@10']:.1%} | {r['regret@20']:.1%} | "
                   f"{r['trials_to_95']:.1f} | {r['reached']:.0%} |")
    return [*out, "", *[f"- {t}" for t in targets(table, "real")]]


LOOP = ("refit", "autotune", "tpe", "cold")  # the model in the loop, a fixed model start, cold TPE, TPE + pattern search


def loop_lines(records: list[dict[str, Any]], table: dict[tuple[str, str], dict[str, float]], trials: int) -> list[str]:
    """The model in the loop against a fixed-model start and cold search: the stated target per kind of truth
    (refit reaches 95% in fewer trials than both, median over truths x seeds), the mean too (the median ties at
    trials + 1 when half the campaigns miss), paired wins per (truth, seed), and who proposed the trials."""
    if not any(r["method"] == "refit" for r in records):
        return []
    out = ["", "## The model in the loop (refit) against a fixed-model start (autotune) and cold search (tpe; cold = "
           "TPE + pattern search)", "",
           "Target, stated before the run: on the structural truths (wrong mechanisms) `refit` reaches 95% of the optimum "
           "in fewer trials (median over truths x seeds) than both `autotune` and `tpe`.", "",
           "| kind | " + " | ".join(f"{m}: median / mean trials to 95%" for m in LOOP) + " | target |",
           "|---" * (len(LOOP) + 2) + "|"]
    for kind in ("structural", "real", "all"):
        row = [table.get((kind, m)) for m in LOOP]
        if row[0] is None:
            continue
        means = [_mean([r["trials_to_95"] or trials + 1 for r in records if r["method"] == m
                        and (kind == "all" or r["kind"] == kind)]) for m in LOOP]
        cells = [f"{r['trials_to_95']:.1f} / {mu:.1f}" if r else "-" for r, mu in zip(row, means, strict=True)]
        others = [r["trials_to_95"] for r in row[1:3] if r]
        met = all(row[0]["trials_to_95"] < o for o in others)
        out.append(f"| {kind} | " + " | ".join(cells) + f" | {'met' if met else 'NOT met'} |")
    out += ["", "Per truth (median trials to 95% refit / autotune / tpe / cold): " + "; ".join(
        f"{t} {' / '.join(format(ms[m]['trials_to_95'], '.0f') if m in ms else '-' for m in LOOP)}"
        for t, ms in per_truth(records, trials).items() if "refit" in ms), ""]
    for kind in ("structural", "real"):
        by = {(r["truth"], r["seed"], r["method"]): r["trials_to_95"] or trials + 1 for r in records if r["kind"] == kind}
        for other in LOOP[1:]:
            pairs = [(v, by[(t, s, other)]) for (t, s, m), v in by.items() if m == "refit" and (t, s, other) in by]
            if pairs:
                w = sum(a < b for a, b in pairs)
                tie = sum(a == b for a, b in pairs)
                out.append(f"- {kind}: refit vs {other}, paired by truth and seed: fewer trials to 95% in {w}, as many in "
                           f"{tie}, more in {len(pairs) - w - tie} of {len(pairs)}")
    loops = [r["loop"] for r in records if r.get("loop")]
    if loops:
        model = [sum(p == "model" for p in lp["proposed_by"][4:]) / max(1, len(lp["proposed_by"][4:])) for lp in loops]
        off = sum(1 for lp in loops if not lp["share"])
        out.append(f"- the model's proposals after its start (trials 5+): median {_med(model):.0%} of them; its share was "
                   f"0 (the search alone) at the end of {off} of {len(loops)} campaigns")
    return out


def floor_line(records: list[dict[str, Any]], truths: list[dict[str, Any]], trials: int) -> list[str]:
    """Per method, the share of campaigns on real surfaces whose regret at the end is within their truth's noise
    floor (a regret the truth cannot tell from a twin of the optimum)."""
    floor = {t["truth"]: t["noise_floor"] for t in truths if t.get("noise_floor") is not None}
    by: dict[str, list[bool]] = defaultdict(list)
    for r in records:
        if r["truth"] in floor and str(trials) in r["regret"]:
            by[r["method"]].append(r["regret"][str(trials)] <= floor[r["truth"]])
    if not by:
        return []
    return [f"- regret after {trials} trials within the truth's noise floor: "
            + ", ".join(f"{m} {np.mean(v):.0%}" for m, v in sorted(by.items()))]


def gain_lines(records: list[dict[str, Any]]) -> list[str]:
    """Best-of-N's claimed gain over the default against the truth, and the confirmation's (real surfaces)."""
    by: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        if r.get("gain"):
            by[r["method"]].append(r["gain"])
            by["all"].append(r["gain"])
    if not by:
        return []
    aggs = sorted({str(g.get("aggregate") or "") for gs in by.values() for g in gs} - {""})
    claimed = f"claimed ({' or '.join(f'{a} of N' for a in aggs)})" if aggs else "claimed (the search's aggregate of N)"
    out = ["", f"## Gain over the default: {claimed}, measured by the confirmation, and true (real surfaces)",
           "", "Medians over surfaces x seeds after 20 trials. Overstatement = (1 + claimed) / (1 + true) - 1.", "",
           f"| method | {claimed} | true gain of that pick | overstatement | confirmed margin | "
           "its overstatement (vs the winner's true gain) | true gain of the exported hints | proven | "
           "settings exported / changed |",
           "|---|---|---|---|---|---|---|---|---|"]
    for m, gs in sorted(by.items(), key=lambda kv: kv[0] == "all"):
        over = [(1 + g["claimed"]) / (1 + g["true_of_best"]) - 1 for g in gs]
        conf_over = [(1 + g["confirmed_margin"]) / (1 + g["true_of_winner"]) - 1 for g in gs]
        out.append(f"| {m} | {_med([g['claimed'] for g in gs]):+.0%} | {_med([g['true_of_best'] for g in gs]):+.0%} | "
                   f"{_med(over):+.0%} | {_med([g['confirmed_margin'] for g in gs]):+.0%} | {_med(conf_over):+.0%} | "
                   f"{_med([g['true_of_recommended'] for g in gs]):+.0%} | {np.mean([g['proven'] for g in gs]):.0%} | "
                   f"{_med([g['exported_settings'] for g in gs]):.0f} / {_med([g['best_settings_changed'] for g in gs]):.0f} |")
    proven: dict[str, list[bool]] = defaultdict(list)
    for r in records:
        if r.get("gain"):
            proven[r["truth"]].append(r["gain"]["proven"])
    out += ["", "Proven (the confirmation of the code that made the records showed a gain above zero at 95%), per surface: "
            + ", ".join(f"{t} {np.mean(v):.0%}" for t, v in sorted(proven.items()))]
    return out


def markdown(data: dict[str, Any]) -> str:
    meta, records = data["meta"], data["records"]
    trials = int(meta["trials"])
    table = method_table(records, trials)
    lines = [f"# Search on truths the model did not write ({meta['seeds']} seeds, {trials} trials)", "",
             f"Command: `{meta['command']}` ({meta['seconds']:.0f} s).", ""]
    lines += [f"- {n}" for n in meta.get("notes", [])] + [""]
    lines += ["## Truths", "", "| truth | kind | optimum (MiB/s) | default regret | noise floor | runs | optimum configuration |",
              "|---|---|---|---|---|---|---|"]
    for t in data["truths"]:
        cfg = ", ".join(f"{k.split('.', 1)[1]}={v}" for k, v in sorted(t["optimum_config"].items()))
        floor = f"{t['noise_floor']:.1%}" if t.get("noise_floor") is not None else "-"
        runs = f"{t['repetitions_total']} ({t['repetitions_min']}+ per config)" if "repetitions_total" in t else "model"
        lines.append(f"| {t['truth']} | {t['kind']} | {t['optimum']:.4g} | {t['default_regret']:.1%} | {floor} | {runs} "
                     f"| {cfg} |")
    lines += ["", "Noise floor: how far apart a real surface's truth (per-configuration median) puts configurations that",
              "are physically the same (they differ only in settings that cannot act); regrets below it are within the",
              "truth's own noise."]
    for kind in ("real", "structural", "all"):
        rows = sorted((m, r) for (k, m), r in table.items() if k == kind)
        if not rows:
            continue
        lines += ["", f"## {kind}: median over truths x seeds", "",
                  "| method | regret@5 | regret@10 | regret@20 | trials to 95% | bench s to 95% | reached 95% "
                  "| exported after 10 / 20 (confirmed) |",
                  "|---|---|---|---|---|---|---|---|"]
        for m, r in rows:
            lines.append(f"| {m} | {r['regret@5']:.1%} | {r['regret@10']:.1%} | {r['regret@20']:.1%} | "
                         f"{r['trials_to_95']:.1f} | {r['seconds_to_95']:.1f} | {r['reached']:.0%} | "
                         f"{_pct(r['confirmed@10'])} / {_pct(r['confirmed@20'])} |")
        lines += ["", *[f"- {t}" for t in targets(table, kind)]]
        if kind == "real":
            lines += floor_line(records, data["truths"], trials)
            lines += physical_lines(records, trials)
    lines += loop_lines(records, table, trials)
    lines += gain_lines(records)
    lines += ["", "## Per truth (median regret@10 / @20, trials to 95%)", ""]
    pt = per_truth(records, trials)
    methods = sorted({r["method"] for r in records})
    lines += ["| truth | " + " | ".join(methods) + " |", "|---" * (len(methods) + 1) + "|"]
    for t, ms in pt.items():
        cells = [f"{ms[m]['regret@10']:.0%}/{ms[m]['regret@20']:.0%}/{ms[m]['trials_to_95']:.0f}" if m in ms else "-"
                 for m in methods]
        lines.append(f"| {t} | " + " | ".join(cells) + " |")
    lines += ["", "Trials to 95%: a campaign that never came within 5% of the optimum counts as trials + 1."]
    return "\n".join(lines) + "\n"

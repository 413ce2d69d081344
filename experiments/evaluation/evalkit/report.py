"""Medians from the per-seed records, the targets, a Markdown report and regret-curve plots."""

from __future__ import annotations

import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

MAIN = ("autotune", "tpe", "gp", "cmaes", "random", "ga")


def _med(xs: list[float]) -> float | None:
    return statistics.median(xs) if xs else None


def t95(r: dict[str, Any], budget: int) -> float:
    """Trials to 95% with 'never' counted as budget + 1 (so medians stay defined)."""
    return float(r["trials_to_95"]) if r.get("trials_to_95") is not None else float(budget + 1)


def medians(records: list[dict[str, Any]], budget: int) -> dict[tuple[str, str], dict[str, Any]]:
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        groups[(r["scenario"], r["method"])].append(r)
    out = {}
    for key, rs in groups.items():
        row: dict[str, Any] = {"n": len(rs), "held_out": rs[0].get("held_out", False)}
        for k in ("5", "10", "20", "40"):
            row[f"regret@{k}"] = _med([r["regret"][k] for r in rs if k in r["regret"]])
        row["trials_to_95"] = _med([t95(r, budget) for r in rs])
        reached = [r["bench_seconds_to_95"] for r in rs if r.get("bench_seconds_to_95") is not None]
        row["bench_seconds_to_95"] = _med(reached) if len(reached) * 2 > len(rs) else None
        row["bench_seconds"] = _med([r["bench_seconds"] for r in rs])
        row["bw_gain_per_min"] = _med([r["bw_gain_per_tuning_minute"] for r in rs if "bw_gain_per_tuning_minute" in r])
        out[key] = row
    return out


def targets(med: dict[tuple[str, str], dict[str, Any]], scenarios: list[str], overhead: dict[str, Any] | None,
            budget: int) -> dict[str, Any]:
    """Each target, per scenario, from the medians."""
    res: dict[str, Any] = {}
    for sc in scenarios:
        a = med.get((sc, "autotune"))
        if not a:
            continue
        rnd, ga = med.get((sc, "random")) or {}, med.get((sc, "ga")) or {}
        cold, n3 = med.get((sc, "cold")) or {}, med.get((sc, "cold-n3")) or {}
        mis = med.get((sc, "miscal")) or {}
        res[sc] = {
            "regret5_le_10pct": a["regret@5"] is not None and a["regret@5"] <= 0.10,
            "regret20_le_3pct": a["regret@20"] is not None and a["regret@20"] <= 0.03,
            "t95_le_third_of_random": bool(rnd) and a["trials_to_95"] * 3 <= rnd["trials_to_95"],
            "t95_le_fifth_of_ga": bool(ga) and a["trials_to_95"] * 5 <= ga["trials_to_95"],
            "adaptive_same_regret_as_n3": bool(cold and n3) and cold["regret@40"] <= n3["regret@40"] + 0.01,
            "adaptive_seconds_le_60pct_of_n3": bool(cold and n3) and cold["bench_seconds"] <= 0.6 * n3["bench_seconds"],
            "miscal_within_3_trials_of_cold": bool(mis and cold) and mis["trials_to_95"] <= cold["trials_to_95"] + 3,
        }
    if overhead:
        res["overhead_le_50ms"] = overhead["median_ms"] <= 50.0
    return res


def _fmt(v: Any, as_percent: bool = False, budget: int | None = None) -> str:
    if v is None:
        return "—"
    if as_percent:
        return f"{100 * v:.1f}%"
    if budget is not None and isinstance(v, float) and v >= budget + 1:
        return f">{budget}"
    return f"{v:.0f}" if isinstance(v, float) and abs(v) >= 10 else f"{v:.3g}" if isinstance(v, float) else str(v)


def optimum_text(t: dict[str, Any]) -> str:
    """The optimum with its unit (older records have no ``metric``: bandwidths)."""
    if "seconds" in str(t.get("metric", "")):
        return f"{t['optimum']:.3g} s ({t['metric']})"
    return f"{t['optimum']:.0f} MiB/s"


def markdown(data: dict[str, Any]) -> str:
    budget = int(data["meta"]["trials"])
    med = medians(data["records"], budget)
    scen = [t["scenario"] for t in data["truths"]]
    methods = sorted({m for _, m in med}, key=lambda m: (m not in MAIN, MAIN.index(m) if m in MAIN else 0, m))
    lines = [f"# Optimizer evaluation ({'quick' if data['meta']['quick'] else 'full'} run)", "",
             f"Command: `{data['meta']['command']}`  ", f"Seeds per scenario and method: {data['meta']['seeds']}; "
             f"budget {budget} trials; noise on (autotune.model.NoiseModel defaults); regret of the *recommended* "
             "configuration on the noiseless model; medians over seeds, 'never' counted as budget+1.", ""]
    if data["meta"].get("notes"):
        lines += [f"- {n}" for n in data["meta"]["notes"]] + [""]
    lines += ["| scenario | method | n | regret@5 | regret@10 | regret@20 | regret@40 | trials to 95% | bench s to 95% "
              "| bench s (all) | MiB/s gained per tuning-minute |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for sc in scen:
        for m in methods:
            r = med.get((sc, m))
            if r:
                name = f"{sc}{' (held out)' if r['held_out'] else ''}"
                lines.append(f"| {name} | {m} | {r['n']} | {_fmt(r['regret@5'], True)} | {_fmt(r['regret@10'], True)} | "
                             f"{_fmt(r['regret@20'], True)} | {_fmt(r['regret@40'], True)} | "
                             f"{_fmt(r['trials_to_95'], budget=budget)} | {_fmt(r['bench_seconds_to_95'])} | "
                             f"{_fmt(r['bench_seconds'])} | {_fmt(r['bw_gain_per_min'])} |")
    lines += ["", "## Summary (regret after 5 / after 20 trials / trials to 95%, medians)", "", *summary_table(data)]
    lines += ["", "## Adaptive best-of-N vs fixed N (no model start; regret after 40 trials, benchmark seconds)", "",
              *adaptive_table(data)]
    tg = targets(med, scen, data.get("overhead"), budget)
    names = sorted({k for v in tg.values() if isinstance(v, dict) for k in v})
    lines += ["", "## Targets per scenario (autotune; adaptive/miscal rows use the cold-start variants)", "",
              "| scenario | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    for sc in scen:
        if sc in tg:
            lines.append(f"| {sc} | " + " | ".join("yes" if tg[sc][n] else "**no**" for n in names) + " |")
    if data.get("overhead"):
        o = data["overhead"]
        lines += ["", f"Tuner overhead ({o['method']}, {o['trials']} trials, storage {o['storage']}, tracking "
                  f"{o['tracking']}): median {o['median_ms']:.1f} ms per trial, last 100 trials {o['median_last_100_ms']:.1f}"
                  f" ms, p90 {o['p90_ms']:.1f} ms (target ≤ 50 ms: {'met' if o['median_ms'] <= 50 else 'NOT met'})."]
    lines += ["", "## True optima (exhaustive search of the noiseless model)", "",
              "| scenario | optimum | default's regret | optimum configuration |", "|---|---|---|---|"]
    for t in data["truths"]:
        lines.append(f"| {t['scenario']} | {optimum_text(t)} | {100 * t['default_regret']:.1f}% | "
                     f"{', '.join(f'{k}={v}' for k, v in t['optimum_config'].items())} |")
    return "\n".join(lines) + "\n"


SUMMARY = ("autotune", "tpe", "gp", "cmaes", "random", "ga", "cold", "cold-gp", "miscal", "cold+warm")


def summary_table(data: dict[str, Any]) -> list[str]:
    """Markdown rows: per scenario, ``regret@5/regret@20/trials to 95%`` of each method (docs/evaluation/optimizer.md)."""
    budget = int(data["meta"]["trials"])
    med = medians(data["records"], budget)
    cols = [m for m in SUMMARY if any(k[1] == m for k in med)]
    out = ["| scenario | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
    for t in data["truths"]:
        sc = t["scenario"]
        cells = []
        for m in cols:
            r = med.get((sc, m))
            regrets = ["—" if not r or r[k] is None else f"{100 * r[k]:.0f}" for k in ("regret@5", "regret@20")]
            cells.append("—" if not r else f"{regrets[0]}/{regrets[1]}/{_fmt(r['trials_to_95'], budget=budget)}")
        out.append(f"| {sc}{' (held out)' if t.get('held_out') else ''} | " + " | ".join(cells) + " |")
    return out


def median_difference(a: list[float], b: list[float], n: int = 4000, seed: int = 0) -> tuple[float, float, float]:
    """median(a) - median(b) with a 95% percentile-bootstrap interval (seeds resampled with replacement)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    xa, xb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    diffs = (np.median(rng.choice(xa, (n, xa.size)), axis=1) - np.median(rng.choice(xb, (n, xb.size)), axis=1))
    lo, hi = np.quantile(diffs, [0.025, 0.975])
    return float(np.median(xa) - np.median(xb)), float(lo), float(hi)


def adaptive_table(data: dict[str, Any]) -> list[str]:
    """Markdown rows: adaptive best-of-3 (``cold``) against fixed N = 1, 3, 5, seconds relative to N = 3, and
    the difference of final regret (adaptive - N=3) with its bootstrap interval over seeds."""
    budget = int(data["meta"]["trials"])
    med = medians(data["records"], budget)
    variants = ("cold", "cold-n1", "cold-n3", "cold-n5")
    final: dict[tuple[str, str], list[float]] = defaultdict(list)
    for r in data["records"]:
        if r["method"] in ("cold", "cold-n3") and str(budget) in r["regret"]:
            final[(r["scenario"], r["method"])].append(r["regret"][str(budget)])
    out = ["| scenario | adaptive | N=1 | N=3 | N=5 | adaptive − N=3 (95% interval) |", "|---|---|---|---|---|---|"]
    for t in data["truths"]:
        rows = {v: med.get((t["scenario"], v)) for v in variants}
        n3 = rows["cold-n3"]
        if not n3 or not all(rows.values()):
            continue
        cells = [f"{_fmt(r[f'regret@{budget}'], True)}, {_fmt(r['bench_seconds'])} s "
                 f"({100 * r['bench_seconds'] / n3['bench_seconds']:.0f}%)" for r in rows.values() if r]
        d, lo, hi = median_difference(final[(t["scenario"], "cold")], final[(t["scenario"], "cold-n3")])
        cells.append(f"{100 * d:+.1f} ({100 * lo:+.1f} … {100 * hi:+.1f}) points")
        out.append(f"| {t['scenario']} | " + " | ".join(cells) + " |")
    return out


def plots(data: dict[str, Any], out_dir: Path, stem: str) -> list[Path]:
    """One PNG of median regret curves per scenario (main methods; one-shot rules as dashed lines)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curves: dict[tuple[str, str], list[list[float]]] = defaultdict(list)
    for r in data["records"]:
        curves[(r["scenario"], r["method"])].append(r["regret_curve"])
    scen = [t["scenario"] for t in data["truths"]]
    groups = {"methods": [*MAIN, "rule:"], "studies": ["autotune", "cold", "miscal", "cold+warm", "cold-n1", "cold-n3",
                                                      "cold-n5", "cold-gp"]}
    written = []
    for gname, wanted in groups.items():
        cols = 4
        rows = (len(scen) + cols - 1) // cols
        fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 3 * rows), squeeze=False)
        for ax, sc in zip(axes.flat, scen, strict=False):
            for (s, m), cs in sorted(curves.items()):
                if s != sc or not any(m == w or (w.endswith(":") and m.startswith(w)) for w in wanted):
                    continue
                if len(cs[0]) == 1:
                    ax.axhline(100 * cs[0][0], ls="--", lw=0.8, label=m)
                    continue
                n = min(len(c) for c in cs)
                med = [100 * statistics.median(c[i] for c in cs) for i in range(n)]
                ax.plot(range(1, n + 1), med, label=m)
            ax.set_title(sc, fontsize=9)
            ax.set_xlabel("trials")
            ax.set_ylabel("regret %")
            ax.set_ylim(-2, 102)
            ax.legend(fontsize=6)
        for ax in list(axes.flat)[len(scen):]:
            ax.axis("off")
        fig.tight_layout()
        path = out_dir / f"{stem}-regret-{gname}.png"
        fig.savefig(path, dpi=80)
        plt.close(fig)
        written.append(path)
    return written

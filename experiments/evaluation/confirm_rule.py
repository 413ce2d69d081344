"""The best rule of thumb as the confirmation's fallback, checked on the simulated campaigns of ``confirm_eval``.

    python -m experiments.evaluation.confirm_rule --out experiments/evaluation/results/confirm_rule.json
    python -m experiments.evaluation.confirm_rule --quick --out /tmp/r.json                     # small counts

The same campaigns (gain +8% and null surfaces, 12 trials x 3 repetitions, both noise models and calibrations, the
same seeds), once without a rule of thumb (the committed ``confirm_eval`` figures' setting) and once per true margin
of a rule over the default (run as one more trial of 3 runs, passed to the confirmation as ``confirm_campaign``
passes the best rule). The fallback recommends the rule whenever nothing is shown better than it, unless it is shown
worse than the default: what it can cost is a rule truly worse than the default that the rounds do not show worse.
Counted per cell: gain campaigns that recommend the +8% configuration; null campaigns that recommend a change shown
better than the default (the error the confirmation controls at 5%); campaigns that recommend the rule; campaigns
whose recommendation is truly more than 1% worse than the default (harmful); intervals that cover the winner's true
margin. Budgets in rounds; the campaign default (as many runs as the search's 36) is about 9 rounds.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import time
from pathlib import Path
from typing import Any

from experiments.evaluation.confirm_eval import GAIN, NOISES, calibrate, campaign

RULES = (None, 0.06, 0.0, -0.03, -0.10)  # the rule's true margin over the default (None: no rule ran)
HARM = -0.01  # a recommendation truly more than 1% worse than the default is harmful (as the replays count it)


def run(seeds: int, budgets: tuple[int, ...], workers: int, first: int) -> list[dict[str, Any]]:
    scales = {m: calibrate(m) for m in NOISES}
    tasks = [(m, scales[m], g, s, b, r) for m in NOISES for b in budgets for r in RULES for g in (GAIN, 0.0)
             for s in range(first, first + (seeds if g else 2 * seeds))]
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        return pool.starmap(campaign, tasks)


KEEP = ("model", "budget", "rule", "gain", "seed", "decision", "recommended", "recommends_rule",
        "recommended_true_gain", "covers", "rounds")


def compact(camps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the table is made of, per campaign (rounded), for the committed json."""
    return [{k: round(c[k], 4) if isinstance(c[k], float) else c[k] for k in KEEP} for c in camps]


def markdown(camps: list[dict[str, Any]], first: int) -> str:
    out = ["# The rule of thumb as the confirmation's fallback (simulated campaigns)", "",
           f"Seeds from {first}. Rule: its true margin over the default (none: no rule ran). Harmful: the recommendation "
           f"is truly more than {-HARM:.0%} worse than the default.", "",
           "| noise | rounds | rule | gain: recommend the +8% | gain: the rule | null: a change shown better | "
           "null: the rule | harmful (gain / null) | interval covers |", "|---|---|---|---|---|---|---|---|---|"]
    for m in NOISES:
        for b in sorted({c["budget"] for c in camps}):
            for r in RULES:
                cs = [c for c in camps if c["model"] == m and c["budget"] == b and c["rule"] == r]
                g, z = [c for c in cs if c["gain"] > 0], [c for c in cs if c["gain"] == 0]

                def n(rows: list[dict[str, Any]], key: str, value: Any = True) -> str:
                    return f"{sum(c[key] == value for c in rows)}/{len(rows)}"

                harm = [sum(c["recommended_true_gain"] < HARM for c in x) for x in (g, z)]
                shown = sum(c["decision"] == "recommend" and c["recommended"] != "default" and not c["recommends_rule"]
                            for c in z)
                out.append(f"| {m} | {b} | {'none' if r is None else f'{r:+.0%}'} | {n(g, 'recommended', 'better')} | "
                           f"{n(g, 'recommends_rule')} | {shown}/{len(z)} | {n(z, 'recommends_rule')} | "
                           f"{harm[0]}/{len(g)} / {harm[1]}/{len(z)} | {n(cs, 'covers')} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m experiments.evaluation.confirm_rule", description=__doc__.split("\n")[0])
    p.add_argument("--out", default="confirm_rule.json")
    p.add_argument("--seeds", type=int, default=50, help="gain campaigns per cell (null: twice as many)")
    p.add_argument("--budgets", type=int, nargs="*", default=[9, 80], help="confirmation rounds at most")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--first-seed", type=int, default=1000)
    p.add_argument("--quick", action="store_true", help="small counts (a smoke run)")
    a = p.parse_args(argv)
    if a.quick:
        a.seeds, a.budgets = 4, [9]
    t0 = time.monotonic()
    camps = run(a.seeds, tuple(a.budgets), a.workers, a.first_seed)
    out = Path(a.out)
    out.write_text(json.dumps({"first_seed": a.first_seed, "seconds": round(time.monotonic() - t0, 1),
                               "campaigns": compact(camps)}, separators=(",", ":")))
    text = markdown(camps, a.first_seed)
    out.with_suffix(".md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

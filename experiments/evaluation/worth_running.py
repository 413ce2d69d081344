"""Is autotune worth running? The recommendation a user gets, against what the user would have tried first.

    python -m experiments.evaluation.worth_running --out experiments/evaluation/results/worth_running  # 10 seeds
    python -m experiments.evaluation.worth_running --seeds 2 --trials 5 --truths ranger-t3pio-stripe-count  # a look
    python -m experiments.evaluation.worth_running --truths 'cirrus-*'  # the truths whose name matches a pattern

Every truth is a recorded sweep replayed as a user's opaque command: the user-style campaign files of
experiments/evaluation/sweeps/campaigns/ (public sweeps of production systems, each naming its source, and this
machine's own surfaces, ``local-*``), each with a metric name a user would choose (``bw``, ``throughput``,
``runtime``: not the built-in names). Each search method runs whole campaigns through the normal loop (the default
and the rules of thumb first, the confirmation at the end), exactly as ``autotune tune`` does; it is scored by the
recorded median of the configuration ``export`` hands back (``recommended_config``), as a fraction of the sweep's
best median. Runs are counted at the launcher: the search's and the confirmation's apart.

Methods: ``default`` (the system's defaults, no search), ``rule:NAME`` (each rule of thumb of the target, no
search), ``random``, ``tpe`` (Optuna's samplers in the campaign loop) and ``autotune`` (the default sampler).
Targets (stated before running): at 5 trials the recommendation reaches >= 0.95 of the best in >= 95% of
campaigns and is never below the best rule of thumb; at 12 trials >= 0.98 in >= 95%.
"""

from __future__ import annotations

import argparse
import fnmatch
import io
import json
import multiprocessing
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from autotune.campaign import CampaignLoop, Runtime, best_trial, parse_campaign, recommended_config
from autotune.hints import inert
from autotune.launch import Recording, ReplayLauncher, RunRequest, RunResult, config_key, parse_key
from autotune.space import rules_of_thumb

HERE = Path(__file__).resolve().parent
CAMPAIGNS = HERE / "sweeps" / "campaigns"
SEARCH = ("random", "tpe", "autotune")
TARGETS = {5: 0.95, 12: 0.98}  # fraction of the best reached in >= 95% of campaigns, stated before running
SHARE = 0.95
CONFIRM_BASE = 2_000_000  # the confirmation's run numbers start here (autotune.campaign.confirm)
WORKDIR = Path("/tmp/autotune-worth")
# the pooled rows: every truth, the public sweeps of production systems, this machine's own surfaces (``local-*``,
# whose physically identical configurations differ by 9-26% in median: below that the score is noise)
GROUPS = (("all", lambda name: True), ("public", lambda name: not name.startswith("local-")),
          ("this machine", lambda name: name.startswith("local-")))
last_records: list[dict[str, Any]] = []  # the last run's records (main), for a caller in the same process


@dataclass
class Truth:
    """A recorded sweep and the user-style campaign that replays it."""

    name: str
    data: dict[str, Any]  # the campaign file as a user wrote it
    base: Path  # the campaign file's directory (relative paths)
    recording: Recording
    maximize: bool
    phases: tuple[str, ...]
    medians: dict[str, float]  # physical configuration -> the median of all its recorded runs
    defaults: dict[str, str]

    @classmethod
    def load(cls, path: Path) -> Truth:
        data = yaml.safe_load(path.read_text())
        rec = Recording.load(path.parent / data["launcher"]["surface"])
        c = parse_campaign(dict(data, storage=":memory:", tracking={"enabled": False}), path.parent)
        tr = cls(path.stem, data, path.parent, rec, c.objective.direction == "maximize", c.app.pattern.phases, {}, {})
        space = Runtime.build(c).space
        tr.defaults = {k: str(v) for k, v in space.default_config().items()}
        values = {p.name: {str(v) for v in p.values()} for p in space.active}
        pooled: dict[str, list[float]] = {}
        for key, runs in rec.runs.items():
            cfg = parse_key(key)
            if any(k in values and v not in values[k] for k, v in cfg.items()):
                continue  # recorded, but outside the campaign's space (COSMA6's -1): not a configuration it can reach
            pooled.setdefault(tr.physical(cfg), []).extend(v for v, _ in runs if v is not None)
        tr.medians = {k: float(np.median(v)) for k, v in pooled.items() if v}
        return tr

    def physical(self, config: Mapping[str, Any]) -> str:
        """The recording's key of ``config`` with each setting that cannot act (e.g. aggregators with collective
        buffering disabled) at its default: configurations with one key are the same run (twins)."""
        cfg = {k: str(config[k]) for k in self.recording.parameters if k in config}
        dead = inert(cfg, self.phases)
        return config_key({k: self.defaults.get(k, v) if k in dead else v for k, v in cfg.items()})

    def best(self) -> float:
        return max(self.medians.values()) if self.maximize else min(self.medians.values())

    def score(self, config: Mapping[str, Any]) -> float | None:
        """The recorded median of ``config`` (its twins' runs pooled) as a fraction of the best (1.0: the best);
        None: not recorded."""
        v = self.medians.get(self.physical(config))
        if v is None:
            return None
        return v / self.best() if self.maximize else self.best() / v

    def campaign(self, method: str, seed: int, trials: int, workdir: Path) -> Any:
        data = {**self.data, "name": f"{self.name}-{method}-s{seed}-k{trials}",
                "sampler": {**dict(self.data.get("sampler") or {}), "name": method, "seed": seed},
                "budget": {**dict(self.data.get("budget") or {}), "trials": trials},
                "storage": ":memory:", "tracking": {"enabled": False}, "workdir": str(workdir),
                "launcher": {**self.data["launcher"], "seed": seed,
                             "surface": str((self.base / self.data["launcher"]["surface"]).resolve())}}
        return parse_campaign(data, self.base)


class _Counted(ReplayLauncher):
    """The replay launcher, counting the runs of the search and of the confirmation."""

    runs = {"search": 0, "confirm": 0}

    def run(self, request: RunRequest) -> RunResult:
        _Counted.runs["confirm" if request.trial >= CONFIRM_BASE else "search"] += 1
        return super().run(request)


def run_task(task: tuple[str, str, int, int]) -> dict[str, Any]:
    """One campaign (or one baseline) on one truth: what it recommends, its score, and the runs it cost."""
    path, method, seed, trials = task
    tr = Truth.load(Path(path))
    rec: dict[str, Any] = {"truth": tr.name, "method": method, "seed": seed, "trials": trials}
    workdir = WORKDIR / f"{os.getpid()}" / f"{tr.name}-{method}-{seed}-{trials}"
    if method == "default" or method.startswith("rule:"):
        space = Runtime.build(tr.campaign("random", seed, trials, workdir)).space
        config = space.default_config()
        if method.startswith("rule:"):
            config = next(b.config for b in rules_of_thumb(space)[0] if b.name == method[5:])
        rec.update(config=_plain(config, tr), score=tr.score(config), runs=1, confirm_runs=0)
        return rec
    c = tr.campaign(method, seed, trials, workdir)
    rt = Runtime.build(c, _Counted({k: v for k, v in c.launcher.items() if k != "name"}, where="launcher"))
    _Counted.runs = {"search": 0, "confirm": 0}
    t0 = time.perf_counter()
    out = io.StringIO()
    res = CampaignLoop(c, runtime=rt, out=out, progress=False).run()
    config = res.runtime.space.default_config()
    best = best_trial(res.study)
    if best is not None:
        config = {**config, **recommended_config(res.runtime, res.study, best)[0]}
    rec.update(config=_plain(config, tr), score=tr.score(config), runs=_Counted.runs["search"],
               confirm_runs=_Counted.runs["confirm"], seconds=round(time.perf_counter() - t0, 2),
               transcript=out.getvalue()[-4000:])
    return rec


def _plain(config: Mapping[str, Any], tr: Truth) -> str:
    return config_key({k: config[k] for k in tr.recording.parameters if k in config})


def truths(patterns: list[str] | None) -> list[Path]:
    """The campaign files whose name (without .yaml) matches one of ``patterns`` (shell-style: ``cirrus-*``); all
    of them when there is none. A pattern that matches no truth is an error naming it."""
    paths = sorted(CAMPAIGNS.glob("*.yaml"))
    if not patterns:
        return paths
    for pat in patterns:
        if not any(fnmatch.fnmatchcase(p.stem, pat) for p in paths):
            raise ValueError(f"--truths: {pat!r} matches no truth; expected one of {', '.join(p.stem for p in paths)}"
                             " or a shell-style pattern of them")
    return [p for p in paths if any(fnmatch.fnmatchcase(p.stem, pat) for pat in patterns)]


def baselines(path: Path) -> list[str]:
    tr = Truth.load(path)
    space = Runtime.build(tr.campaign("random", 0, 1, WORKDIR)).space
    return ["default", *(f"rule:{b.name}" for b in rules_of_thumb(space)[0])]


def summarise(records: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    """The side-by-side table (markdown), each target's verdict, and the verdicts as data."""
    lines = ["| truth | trials | method | mean | worst | share >= target | below best rule | runs: search + confirmation |",
             "|---|---|---|---|---|---|---|---|"]
    verdicts, data = [], {}
    best_rule: dict[str, float] = {}  # per truth: the best rule of thumb's score (the default's without rules)
    by: dict[tuple[str, int, str], list[dict[str, Any]]] = {}
    for r in records:
        by.setdefault((r["truth"], r["trials"], r["method"]), []).append(r)
    for truth in sorted({r["truth"] for r in records}):
        rules = [float(np.mean([x["score"] or 0 for x in v])) for (t, _, m), v in by.items()
                 if t == truth and m.startswith("rule:")]
        rule_best = max(rules, default=float(np.mean([x["score"] or 0 for (t, _, m), v in by.items()
                                                      if t == truth and m == "default" for x in v])))
        best_rule[truth] = rule_best
        for (t, k, m), v in sorted(by.items(), key=lambda kv: (kv[0][0], kv[0][1], _order(kv[0][2]))):
            if t != truth:
                continue
            scores = [x["score"] or 0.0 for x in v]
            target = TARGETS.get(k)
            hit = sum(s >= target for s in scores) / len(scores) if target else None
            below = sum(s < rule_best - 1e-9 for s in scores)
            runs = np.mean([x["runs"] for x in v]), np.mean([x["confirm_runs"] for x in v])
            lines.append(f"| {t} | {k} | {m} | {np.mean(scores):.3f} | {min(scores):.3f} | "
                         f"{'' if hit is None else f'{hit:.0%}'} | {below}/{len(v)} | {runs[0]:.1f} + {runs[1]:.1f} |")
            if m == "autotune" and target is not None and hit is not None:
                ok = hit >= SHARE and (k != 5 or below == 0)
                data[f"{t}/{k}"] = {"met": ok, "share": hit, "below_rule": below, "campaigns": len(v),
                                    "best_rule": rule_best, "mean_runs": runs[0], "mean_confirm_runs": runs[1]}
                verdicts.append(f"- {t}, {k} trials: {'met' if ok else 'MISSED'} ({hit:.0%} of campaigns >= {target}"
                                + (f"; {below} below the best rule of thumb, {rule_best:.3f})" if k == 5 else ")"))
    pooled = ["| truths | trials | method | campaigns | mean | worst | share >= target | below the truth's best rule | "
              "runs: search + confirmation |", "|---|---|---|---|---|---|---|---|---|"]
    for group, member in GROUPS:
        for k in sorted({r["trials"] for r in records}):
            for m in SEARCH:
                v = [r for r in records if r["trials"] == k and r["method"] == m and member(r["truth"])]
                if not v:
                    continue
                scores = [r["score"] or 0.0 for r in v]
                below = sum(s < best_rule[r["truth"]] - 1e-9 for r, s in zip(v, scores, strict=True))
                pooled.append(f"| {group} | {k} | {m} | {len(v)} | {np.mean(scores):.3f} | {min(scores):.3f} | "
                              f"{np.mean([s >= TARGETS.get(k, 1.0) for s in scores]):.0%} | {below} | "
                              f"{np.mean([r['runs'] for r in v]):.1f} + {np.mean([r['confirm_runs'] for r in v]):.1f} |")
    return "\n".join([*pooled, "", *lines, "", *verdicts]), data


def compact(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per truth, trial count and method (key ``truth/trials/method``), by seed: the score, the runs of the search
    and of the confirmation; and how often each configuration was recommended."""
    out: dict[str, dict[str, Any]] = {}
    for r in sorted(records, key=lambda r: r["seed"]):
        g = out.setdefault(f"{r['truth']}/{r['trials']}/{r['method']}",
                           {"scores": [], "runs": [], "confirm_runs": [], "recommended": {}})
        g["scores"].append(None if r["score"] is None else round(r["score"], 4))
        g["runs"].append(r["runs"])
        g["confirm_runs"].append(r["confirm_runs"])
        g["recommended"][r["config"]] = g["recommended"].get(r["config"], 0) + 1
    return out


def _order(method: str) -> tuple[int, str]:
    return (0 if method == "default" else 1 if method.startswith("rule:") else 2 + list(SEARCH).index(method)
            if method in SEARCH else 9, method)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--trials", type=int, nargs="+", default=[5, 12])
    ap.add_argument("--methods", nargs="+", default=list(SEARCH))
    ap.add_argument("--truths", nargs="*", metavar="PATTERN",
                    help="only the truths whose name matches a shell-style pattern (e.g. 'cirrus-*'); default: all")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", help="write OUT.json (records and verdicts) and OUT.md (the table)")
    ap.add_argument("--transcripts", action="store_true", help="also OUT-misses.txt: the end of each missing campaign's "
                    "transcript")
    args = ap.parse_args(argv)
    try:
        selected = truths(args.truths)
    except ValueError as err:
        ap.error(str(err))
    tasks: list[tuple[str, str, int, int]] = []
    for path in selected:
        for k in args.trials:
            tasks += [(str(path), m, 0, k) for m in baselines(path)]
            tasks += [(str(path), m, s, k) for m in args.methods for s in range(args.seeds)]
    if args.jobs > 1:
        with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
            records = pool.map(run_task, tasks, chunksize=1)
    else:
        records = [run_task(t) for t in tasks]
    last_records[:] = records
    table, verdicts = summarise(records)
    print(table)
    if args.out:
        Path(args.out + ".json").write_text(json.dumps({"targets": TARGETS, "share": SHARE, "verdicts": verdicts,
                                                        "groups": compact(records)}, separators=(",", ":")) + "\n")
        Path(args.out + ".md").write_text(table + "\n")
    if args.out and args.transcripts:
        misses = [r for r in records if r.get("transcript") and (r["score"] or 0) < TARGETS.get(r["trials"], 0)]
        Path(args.out + "-misses.txt").write_text("\n\n".join(
            f"== {r['truth']} {r['method']} seed {r['seed']} {r['trials']} trials: {r['score']} {r['config']}\n"
            f"{r['transcript']}" for r in misses))


if __name__ == "__main__":
    main()

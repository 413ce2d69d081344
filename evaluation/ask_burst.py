"""A job array starting at once: ``--jobs`` real ``autotune ask`` processes released together on a study of
``--trials`` trials, then their ``tell``s together; does every job get its own trial or a fallback within
the bound, and is every tell recorded exactly once?

    .venv/bin/python -m evaluation.ask_burst --store postgresql --trials 10000 --jobs 50

The asks use the jobs' default store timeout (10 s): a job that the store does not answer in time runs the
last known best configuration without a trial (``fallback-cache``) and has nothing to tell. Prints the
counts and the asks' wall-time percentiles.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import optuna

from autotune.testing import fresh_postgres_database, grow_study, production_campaign

ROOT = Path(__file__).resolve().parents[1]


def together(commands: list[list[str]], env: dict[str, str]) -> list[tuple[float, str, str]]:
    """Start the CLI commands at once; each one's (wall seconds, stdout, stderr)."""
    t0 = time.monotonic()
    procs = [subprocess.Popen([sys.executable, "-m", "autotune.cli", *c], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT) for c in commands]
    out = []
    for p in procs:
        o, e = p.communicate(timeout=1800)
        out.append((time.monotonic() - t0, o, e))
    return out


def burst(campaign: Path, url: str, trials: int, jobs: int, env: dict[str, str]) -> dict[str, object]:
    base = [str(campaign), "--storage", url]
    (_, o, _), = together([["ask", *base, "--format", "json", "--timeout", "600s"]], env)
    first = json.loads(o)["trial"]
    together([["tell", *base, "--trial", first, "--value", "900", "--timeout", "600s"]], env)
    grow_study(url, first.split(":")[0], trials, seed=trials)
    asks = together([["ask", *base, "--format", "json", "--seed", str(i)] for i in range(jobs)], env)
    got = [json.loads(o) for _, o, _ in asks]
    refs = [g["trial"] for g in got if g["trial"]]
    numbers = [int(r.split(":")[1]) for r in refs]
    tells = together([["tell", *base, "--trial", r, "--value", str(1000 + i)] for i, r in enumerate(refs)], env)
    study = optuna.load_study(study_name=first.split(":")[0], storage=url)
    told = [t for t in study.get_trials(deepcopy=False) if t.number in set(numbers) and t.user_attrs.get("told_at")]
    walls = sorted(w for w, _, _ in asks)
    return {"jobs": jobs, "trials_before": trials, "got_a_trial": len(refs), "distinct_trials": len(set(numbers)),
            "fallbacks": {s: sum(g["source"] == s for g in got) for s in {g["source"] for g in got} if s.startswith("fallback")},
            "tells_ok": sum("told trial" in o for _, o, _ in tells), "tells_recorded": len(told),
            "values_recorded_once": sorted(float(t.value or 0.0) for t in told) == sorted(1000.0 + i for i in range(len(refs))),
            "left_running_or_waiting": sum(t.state.name in ("RUNNING", "WAITING") for t in study.get_trials(deepcopy=False)),
            "ask_wall_s": {"p50": statistics.median(walls), "max": walls[-1]}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evaluation.ask_burst", description=__doc__.split("\n")[0])
    ap.add_argument("--store", choices=["sqlite", "postgresql"], default="postgresql")
    ap.add_argument("--trials", type=int, default=10000)
    ap.add_argument("--jobs", type=int, default=50)
    ap.add_argument("--server", default=os.environ.get("AUTOTUNE_TEST_POSTGRES_SERVER", "postgresql://postgres@127.0.0.1:5432"))
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="askburst-") as tmp:
        campaign = production_campaign(Path(tmp))
        env = {**os.environ, "AUTOTUNE_CACHE_DIR": str(Path(tmp) / "cache"), "PYTHONWARNINGS": "ignore"}
        load = os.getloadavg()[0]
        if args.store == "sqlite":
            result = burst(campaign, f"sqlite:///{tmp}/burst.db", args.trials, args.jobs, env)
        else:
            with fresh_postgres_database(args.server, f"askburst_{uuid.uuid4().hex[:10]}") as url:
                result = burst(campaign, url, args.trials, args.jobs, env)
    print(json.dumps({"store": args.store, **result, "load_average_before": round(load, 1),
                      "cores": os.cpu_count()}, indent=1))
    ok = result["distinct_trials"] == result["got_a_trial"] == result["tells_recorded"] and result["values_recorded_once"] \
        and not result["left_running_or_waiting"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

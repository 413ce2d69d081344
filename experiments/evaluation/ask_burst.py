"""A job array starting at once: ``--jobs`` jobs each ``ask`` together on a study of ``--trials`` trials,
then ``tell`` together; does every job get its own trial or a fallback within the bound, and is every tell
recorded exactly once?

    .venv/bin/python -m experiments.evaluation.ask_burst --store postgresql --trials 10000 --jobs 50

Each job is its own process, forked after the imports and released by a barrier (as
``experiments/evaluation/service_load.py`` does): on a cluster each job starts Python on its own node, whereas 50
interpreters starting on this 2-core machine would measure the machine, not the store and the service
(``--processes`` measures that too: real ``autotune ask`` command lines). The jobs use the default store
timeout (10 s for ``ask``, 30 s for ``tell``): a job the store does not answer in time runs the last
known best configuration without a trial (``fallback-cache``) and has nothing to tell. Prints the counts
and the asks' latency from the release.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import queue
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import optuna

from autotune.testing import fresh_postgres_database, grow_study, production_campaign

ROOT = Path(__file__).resolve().parents[2]  # the checkout


def _forked(rt: Any, what: str, i: int, ref: str, barrier: Any, out: Any) -> None:
    from autotune.service import Policy, do_ask, do_tell

    barrier.wait()
    t0 = time.monotonic()
    if what == "ask":
        a = do_ask(rt, Policy(), job_id=str(i), expire_s=86400.0, timeout=10.0, seed=i)
        out.put((i, time.monotonic() - t0, a.source, a.ref))
    else:
        status = do_tell(rt, ref, value=1000.0 + i, failure=None, extra={}, timeout=30.0)
        out.put((i, time.monotonic() - t0, status, ref))


def forked(rt: Any, what: str, refs: list[str]) -> list[tuple[int, float, str, str]]:
    """Each job in its own forked process, released together: (job, seconds, source or status, ref)."""
    ctx = mp.get_context("fork")
    barrier, out = ctx.Barrier(len(refs)), ctx.Queue()
    procs = [ctx.Process(target=_forked, args=(rt, what, i, r, barrier, out)) for i, r in enumerate(refs)]
    for p in procs:
        p.start()
    got: list[tuple[int, float, str, str]] = []
    while len(got) < len(procs):
        try:
            got.append(out.get(timeout=5))
        except queue.Empty:
            if not any(p.is_alive() for p in procs) and out.empty():
                raise SystemExit(f"{len(procs) - len(got)} forked {what} job(s) died without an answer") from None
    for p in procs:
        p.join(timeout=60)
    return sorted(got)


def processes(campaign: Path, url: str, what: str, refs: list[str]) -> list[tuple[int, float, str, str]]:
    """Each job a real ``autotune`` command line, all started at once."""
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    t0 = time.monotonic()
    cmds = [["ask", str(campaign), "--storage", url, "--format", "json", "--seed", str(i)] if what == "ask" else
            ["tell", str(campaign), "--storage", url, "--trial", r, "--value", str(1000 + i)] for i, r in enumerate(refs)]
    # (the i-th tell reports 1000 + i, in both modes)
    procs = [subprocess.Popen([sys.executable, "-m", "autotune.cli", *c], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True, env=env, cwd=ROOT) for c in cmds]
    got = []
    for i, p in enumerate(procs):
        o, _ = p.communicate(timeout=1800)
        j = json.loads(o) if what == "ask" else {"source": o.strip(), "trial": refs[i]}
        got.append((i, time.monotonic() - t0, j["source"], j["trial"]))
    return got


def burst(campaign: Path, url: str, trials: int, jobs: int, real: bool) -> dict[str, object]:
    from autotune.campaign import Runtime, load_campaign

    rt = Runtime.build(load_campaign(campaign).with_overrides(storage_url=url))
    (_, _, _, first), = forked(rt, "ask", [""])
    forked(rt, "tell", [first])
    grow_study(url, first.split(":")[0], trials, seed=trials)
    asks = processes(campaign, url, "ask", [""] * jobs) if real else forked(rt, "ask", [""] * jobs)
    refs = [r for _, _, _, r in asks if r]
    numbers = [int(r.split(":")[1]) for r in refs]
    tells = processes(campaign, url, "tell", refs) if real else forked(rt, "tell", refs)
    study = optuna.load_study(study_name=first.split(":")[0], storage=url)
    told = [t for t in study.get_trials(deepcopy=False) if t.number in set(numbers) and t.user_attrs.get("told_at")]
    walls = sorted(w for _, w, _, _ in asks)
    sources = [s for _, _, s, _ in asks]
    return {"jobs": jobs, "trials_before": trials, "got_a_trial": len(refs), "distinct_trials": len(set(numbers)),
            "fallbacks": {s: sources.count(s) for s in sorted(set(sources)) if s.startswith("fallback")},
            "tells_ok": sum(s.startswith("told trial") for _, _, s, _ in tells), "tells_recorded": len(told),
            "values_recorded_once": sorted(float(t.value or 0.0) for t in told) == [1000.0 + i for i in range(len(refs))],
            # a job that gave up waiting may still have its trial made a moment later: RUNNING until it expires
            "left_running_or_waiting": sum(t.state.name in ("RUNNING", "WAITING") for t in study.get_trials(deepcopy=False)),
            "ask_s": {"p50": round(statistics.median(walls), 2), "max": round(walls[-1], 2)},
            "tell_s_max": round(max((w for _, w, _, _ in tells), default=0.0), 2)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.evaluation.ask_burst", description=__doc__.split("\n")[0])
    ap.add_argument("--store", choices=["sqlite", "postgresql"], default="postgresql")
    ap.add_argument("--trials", type=int, default=10000)
    ap.add_argument("--jobs", type=int, default=50)
    ap.add_argument("--processes", action="store_true", help="real command lines instead of forked jobs")
    ap.add_argument("--server", default=os.environ.get("AUTOTUNE_TEST_POSTGRES_SERVER", "postgresql://postgres@127.0.0.1:5432"))
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="askburst-") as tmp:
        campaign = production_campaign(Path(tmp))
        os.environ["AUTOTUNE_CACHE_DIR"] = str(Path(tmp) / "cache")
        load = os.getloadavg()[0]
        if args.store == "sqlite":
            result = burst(campaign, f"sqlite:///{tmp}/burst.db", args.trials, args.jobs, args.processes)
        else:
            with fresh_postgres_database(args.server, f"askburst_{uuid.uuid4().hex[:10]}") as url:
                result = burst(campaign, url, args.trials, args.jobs, args.processes)
    print(json.dumps({"store": args.store, "jobs_are": "processes" if args.processes else "forked", **result,
                      "load_average_before": round(load, 1), "cores": os.cpu_count()}, indent=1))
    ok = result["distinct_trials"] == result["got_a_trial"] == result["tells_recorded"] and result["values_recorded_once"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

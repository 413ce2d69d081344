"""Production jobs against one store at once: ask latency, lost or duplicated tells, outages.

    .venv/bin/python -m experiments.evaluation.service_load --pairs 500 --concurrency 50

Each "job" is its own process, forked after the imports (Optuna, SQLAlchemy, alembic, the PostgreSQL
driver) so that 500 of them do not spend the 2-core machine on importing Python: the latency measured is
the store's and the service's work (opening the store, expiring, the policy, the trial), not a process's
start-up, which ``experiments/evaluation/ask_cost.py`` measures on its own. ``ask`` → a short sleep standing for the
application → ``tell`` with a value only that job knows. Two scenarios side by side in one run, each on a
NEW PostgreSQL database reached through a TCP proxy on 127.0.0.1: ``steady`` (the store is up), and
``outage`` (the proxy drops every connection and refuses new ones for ``--outage`` seconds in the middle
of the run, as when the database goes down).
Afterwards: every tell a job made must be in the study exactly once with its value (a tell made during the
outage is spooled and delivered by the next ask), no trial may stay RUNNING past its expiry, and every job
must have run (with a fallback configuration when the store was away). Prints one table; exit 1 on a
lost or duplicated tell.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import optuna
import yaml
from optuna.trial import TrialState

from autotune.campaign import Runtime, load_campaign
from autotune.service import Policy, do_ask, do_tell, expire_stale
from autotune.testing import TcpProxy, fresh_postgres_database

EXAMPLE = Path(__file__).resolve().parents[2] / "experiments" / "campaigns" / "model-theta-ior.yaml"


def job(rt: Any, i: int, out: str, timeout: float) -> None:
    """One production job: ask, 'run', tell; what it did goes to ``out`` as JSON."""
    t0, c0 = time.monotonic(), time.process_time()
    a = do_ask(rt, Policy(explore=0.3, max_slowdown=0.3), job_id=f"job-{i}", expire_s=60.0, timeout=timeout,
               seed=i, err=open(os.devnull, "w"))
    ask_s, ask_cpu = time.monotonic() - t0, time.process_time() - c0
    time.sleep(random.Random(i).uniform(0.0, 0.3))
    value = 1000.0 + i  # only this job knows it: the check finds it in the study or not
    status = ""
    if a.ref:
        status = do_tell(rt, a.ref, value=value, failure=None, extra={"job": i}, timeout=timeout,
                         err=open(os.devnull, "w"))
    Path(out).write_text(json.dumps({"job": i, "ask_s": ask_s, "ask_cpu_s": ask_cpu, "source": a.source, "ref": a.ref,
                                     "value": value, "tell": status}))


def scenario(name: str, rt_args: dict[str, Any], pairs: int, concurrency: int, outage: float, tmp: Path,
             timeout: float) -> dict[str, Any]:
    with fresh_postgres_database(rt_args["server"], f"svcload_{uuid.uuid4().hex[:10]}") as url:
        proxy = TcpProxy(("127.0.0.1", rt_args["port"])).start()
        via = url.replace(f"127.0.0.1:{rt_args['port']}", f"127.0.0.1:{proxy.port}")
        c = load_campaign(rt_args["campaign"]).with_overrides(storage_url=via, workdir=tmp / name, study="prod")
        os.environ["AUTOTUNE_CACHE_DIR"] = str(tmp / name / "cache")
        rt = Runtime.build(c)
        outs = tmp / name / "jobs"
        outs.mkdir(parents=True)
        ctx = mp.get_context("fork")
        running: list[Any] = []
        t0 = time.monotonic()
        down_at = t0 + 1e9
        for i in range(pairs):
            while len(running) >= concurrency:
                running = [p for p in running if p.is_alive()]
                time.sleep(0.01)
            if outage and i == pairs // 3:
                proxy.stop()
                down_at = time.monotonic()
            if outage and proxy._server is None and time.monotonic() - down_at > outage:
                proxy = TcpProxy(("127.0.0.1", rt_args["port"]), port=proxy.port).start()
            p = ctx.Process(target=job, args=(rt, i, str(outs / f"{i}.json"), timeout))
            p.start()
            running.append(p)
        for p in running:
            p.join()
        if proxy._server is None:
            proxy = TcpProxy(("127.0.0.1", rt_args["port"]), port=proxy.port).start()
        wall = time.monotonic() - t0
        # the next ask after the store is back delivers what was spooled, then expiry is checked
        do_ask(rt, Policy(explore=0.0), job_id="final", expire_s=1.0, timeout=300, seed=0)
        proxy.stop()
        study = optuna.load_study(study_name="prod", storage=url)
        time.sleep(1.5)
        expire_stale(study, now=time.time() + 120)  # past every job's expiry
        records = [json.loads(f.read_text()) for f in outs.glob("*.json")]
        trials = study.get_trials(deepcopy=False)
        told = {r["ref"].split(":")[1]: r["value"] for r in records if r["ref"]}
        by_number = {str(t.number): t for t in trials}
        lost = [n for n, v in told.items() if n not in by_number or by_number[n].value != v]
        values = [t.value for t in trials if t.value is not None]
        dup = len(values) - len(set(values))
        asks = sorted(r["ask_s"] for r in records)
        load = os.getloadavg()[0]
        return {"scenario": name, "jobs": pairs, "jobs_ran": len(records), "wall_s": round(wall, 1),
                "ask_p50_s": round(statistics.median(asks), 3), "ask_p99_s": round(asks[int(0.99 * (len(asks) - 1))], 3),
                "ask_cpu_p50_s": round(statistics.median(r["ask_cpu_s"] for r in records), 3),
                "trials": len(told), "fallbacks": sum(1 for r in records if r["source"].startswith("fallback")),
                "spooled": sum(1 for r in records if r["tell"] == "spooled"), "lost_tells": len(lost),
                "duplicated_tells": dup,
                "running_after_expiry": sum(1 for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))),
                "load_avg_1min": round(load, 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.evaluation.service_load", description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=500)
    ap.add_argument("--concurrency", type=int, default=50, help="jobs at once (PostgreSQL allows 100 connections)")
    ap.add_argument("--outage", type=float, default=10.0, help="seconds the store is away in the outage scenario")
    ap.add_argument("--timeout", type=float, default=10.0, help="the jobs' store timeout (ask's default)")
    ap.add_argument("--server", default=os.environ.get("AUTOTUNE_TEST_POSTGRES_SERVER", "postgresql://postgres@127.0.0.1:5432"))
    ap.add_argument("--out", default=None, help="also write the table as JSON here")
    args = ap.parse_args(argv)
    import alembic.migration  # noqa: F401 - imported once here, shared by the forked jobs (see the docstring)
    import optuna.storages._rdb.models  # noqa: F401
    import psycopg  # noqa: F401

    print(f"{args.pairs} jobs, {args.concurrency} at once; load average at the start: {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores", flush=True)
    data = yaml.safe_load(EXAMPLE.read_text())
    data["tracking"] = {"enabled": False}
    rows = []
    with tempfile.TemporaryDirectory(prefix="svcload-") as tmp:
        campaign = Path(tmp) / "prod.yaml"
        campaign.write_text(yaml.safe_dump(data))
        rt_args = {"server": args.server, "port": int(args.server.rsplit(":", 1)[1].split("/")[0]), "campaign": campaign}
        for name, outage in (("steady", 0.0), ("outage", args.outage)):
            rows.append(scenario(name, rt_args, args.pairs, args.concurrency, outage, Path(tmp), args.timeout))
            print(json.dumps(rows[-1]), flush=True)
    keys = list(rows[0])
    print("\n| " + " | ".join(keys) + " |\n|" + "---|" * len(keys))
    for r in rows:
        print("| " + " | ".join(str(r[k]) for k in keys) + " |")
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if args.out:
        Path(args.out).write_text(json.dumps({"command": " ".join(sys.argv), "rows": rows}, indent=1))
    return 1 if any(r["lost_tells"] or r["duplicated_tells"] or r["running_after_expiry"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())

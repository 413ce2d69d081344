"""What one ``autotune ask`` and one ``autotune tell`` cost a compute node: CPU seconds and wall time of
the real command-line processes (Python start-up, imports, opening the store, the work), one at a time.

    .venv/bin/python -m experiments.evaluation.ask_cost --pairs 5

Stores: a SQLite file, the PostgreSQL server directly (a new database), and the same database through
Optuna's gRPC storage proxy (``autotune store serve``), where the job imports neither SQLAlchemy nor
alembic. Prints the median CPU (user+sys of the process) and wall seconds per command and store.
"""

from __future__ import annotations

import argparse
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import yaml

from autotune.testing import fresh_postgres_database, production_campaign

ROOT = Path(__file__).resolve().parents[2]  # the checkout


def _run(args: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    res = subprocess.run([sys.executable, "-m", "autotune.cli", *args], capture_output=True, text=True, env=env,
                         timeout=300)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if res.returncode != 0:
        raise SystemExit(f"autotune {' '.join(args)} failed: {res.stderr.strip()[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, res.stdout


def measure(campaign: Path, storage: str, pairs: int, env: dict[str, str]) -> dict[str, float]:
    cpu_ask, wall_ask, cpu_tell, wall_tell = [], [], [], []
    for i in range(pairs + 1):  # the first pair sets the study up: not counted
        c, w, out = _run(["ask", str(campaign), "--storage", storage, "--explore", "0.2", "--seed", str(i),
                          "--timeout", "300s", "--format", "json"], env)
        ref = yaml.safe_load(out)["trial"]
        c2, w2, _ = _run(["tell", str(campaign), "--storage", storage, "--trial", ref, "--value", str(100 + i),
                          "--timeout", "300s"], env)
        if i:
            cpu_ask.append(c)
            wall_ask.append(w)
            cpu_tell.append(c2)
            wall_tell.append(w2)
    med = statistics.median
    return {"ask_cpu_s": med(cpu_ask), "ask_wall_s": med(wall_ask), "tell_cpu_s": med(cpu_tell),
            "tell_wall_s": med(wall_tell)}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.evaluation.ask_cost", description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--stores", nargs="+", default=["sqlite", "postgresql", "grpc"], choices=["sqlite", "postgresql", "grpc"])
    ap.add_argument("--server", default=os.environ.get("AUTOTUNE_TEST_POSTGRES_SERVER", "postgresql://postgres@127.0.0.1:5432"))
    args = ap.parse_args(argv)
    rows = {}
    with tempfile.TemporaryDirectory(prefix="askcost-") as tmp:
        campaign = production_campaign(Path(tmp))
        env = {**os.environ, "AUTOTUNE_CACHE_DIR": str(Path(tmp) / "cache"), "PYTHONWARNINGS": "ignore"}
        if "sqlite" in args.stores:
            rows["sqlite"] = measure(campaign, f"sqlite:///{tmp}/s.db", args.pairs, env)
        with fresh_postgres_database(args.server, f"askcost_{uuid.uuid4().hex[:10]}") as url:
            if "postgresql" in args.stores:
                rows["postgresql"] = measure(campaign, url, args.pairs, env)
            if "grpc" not in args.stores:
                return _print(rows, args.pairs)
            port = _free_port()
            proxy = subprocess.Popen([sys.executable, "-m", "autotune.cli", "store", "serve", "--storage", url,
                                      "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True, env=env)
            try:
                assert proxy.stdout is not None and "serving" in proxy.stdout.readline()
                time.sleep(1.0)
                rows["grpc proxy"] = measure(campaign, f"grpc://127.0.0.1:{port}", args.pairs, env)
            finally:
                proxy.terminate()
                proxy.wait(timeout=30)
    return _print(rows, args.pairs)


def _print(rows: dict[str, dict[str, float]], pairs: int) -> int:
    print(f"median of {pairs} sequential ask/tell pairs (real CLI processes), seconds")
    print("| store | ask CPU | ask wall | tell CPU | tell wall |\n|---|---|---|---|---|")
    for k, r in rows.items():
        print(f"| {k} | {r['ask_cpu_s']:.2f} | {r['ask_wall_s']:.2f} | {r['tell_cpu_s']:.2f} | {r['tell_wall_s']:.2f} |")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())

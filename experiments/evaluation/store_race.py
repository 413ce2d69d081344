"""Workers starting at once on a fresh store: how many of them fail?

    .venv/bin/python -m experiments.evaluation.store_race --rounds 20 --workers 3

Each round makes a NEW PostgreSQL database (Optuna storage) and a NEW work directory shared by the workers
(their MLflow store, ``sqlite:///WORKDIR/mlflow.db``), then a second set-up with everything in SQLite in
another new work directory, and starts ``--workers`` ``autotune tune`` processes at the same moment on
each. It prints the failures per round and the first line of each failure; exit 1 if any worker failed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from autotune.testing import fresh_postgres_database

CAMPAIGN = Path(__file__).resolve().parents[2] / "experiments" / "campaigns" / "model-theta-ior.yaml"


def start_together(n: int, workdir: Path, storage: str | None, trials: int) -> list[str]:
    """Start ``n`` workers at once; the errors of those that failed (empty: all succeeded)."""
    cmd = [sys.executable, "-m", "autotune.cli", "tune", str(CAMPAIGN), "--study", "race", "--trials", str(trials),
           "--workdir", str(workdir)]
    if storage:
        cmd += ["--storage", storage]
    procs = [subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for _ in range(n)]
    errors = []
    for p in procs:
        _, err = p.communicate(timeout=600)
        if p.returncode != 0:
            errors.append((err.strip().splitlines() or [f"exit {p.returncode}"])[-1])
    return errors


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.evaluation.store_race", description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--workers", type=int, default=3)
    ap.add_argument("--trials", type=int, default=2, help="per campaign (the race is at start-up)")
    ap.add_argument("--server", default=os.environ.get("AUTOTUNE_TEST_POSTGRES_SERVER", "postgresql://postgres@127.0.0.1:5432"))
    args = ap.parse_args(argv)
    failures = {"postgres": 0, "sqlite": 0}
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="store-race-") as tmp:
        for r in range(args.rounds):
            with fresh_postgres_database(args.server, f"race_{uuid.uuid4().hex[:10]}") as url:
                pg = start_together(args.workers, Path(tmp) / f"pg{r}", url, args.trials)
            lite = start_together(args.workers, Path(tmp) / f"lite{r}", None, args.trials)
            failures["postgres"] += len(pg)
            failures["sqlite"] += len(lite)
            print(f"round {r + 1:2d}: postgres {len(pg)} failed, sqlite {len(lite)} failed"
                  + "".join(f"\n    {e}" for e in pg + lite), flush=True)
    total = args.rounds * args.workers
    print(f"{args.rounds} rounds x {args.workers} workers started at once ({time.monotonic() - t0:.0f} s): "
          f"fresh PostgreSQL {failures['postgres']}/{total} failed, fresh SQLite work directory "
          f"{failures['sqlite']}/{total} failed")
    return 1 if any(failures.values()) else 0


if __name__ == "__main__":
    sys.exit(main())

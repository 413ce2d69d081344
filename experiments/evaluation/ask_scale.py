"""What ``ask``, ``tell``, ``hints`` and ``status`` cost as a production study grows to 1k, 10k and 100k trials,
on SQLite and PostgreSQL, side by side with the code path before bounded reads (``--old REV``).

    .venv/bin/python -m experiments.evaluation.ask_scale --sizes 1000 10000 100000 --pairs 3 --old 0d3f30d --old-sizes 1000 10000

The study is set up by a real ``ask``/``tell``; its history is then bulk-created in Optuna's own tables
(completed production trials with random configurations of the space and values around 1 GiB/s, exactly
the rows Optuna writes for a told trial), and at each size the real command-line processes are timed:
``ask --explore 0`` (the best known), ``ask --explore 1`` (a new configuration judged by the policy),
``tell``, ``hints`` and ``status``. Each figure is the median wall and CPU (user+sys of the process, Python
start-up included) over ``--pairs`` runs; the old code path runs once per size (it takes tens of seconds at
10k trials). The machine's load average is printed: compare rows of one run, not across runs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from autotune.testing import fresh_postgres_database, grow_study, production_campaign

ROOT = Path(__file__).resolve().parents[2]  # the checkout
COMMANDS = ("ask best", "ask explore", "tell", "hints", "status")


def run(args: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """One CLI process: (CPU seconds, wall seconds, stdout)."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    # run from the package's parent (``-m`` puts the working directory first on the path, before PYTHONPATH)
    res = subprocess.run([sys.executable, "-m", "autotune.cli", *args], capture_output=True, text=True, env=env,
                         timeout=1800, cwd=env["PYTHONPATH"])
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if res.returncode != 0:
        raise SystemExit(f"autotune {' '.join(args[:1])} failed: {res.stderr.strip()[-800:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall, res.stdout


def measure(campaign: Path, url: str, pairs: int, env: dict[str, str], seed: int) -> dict[str, tuple[float, float]]:
    """Median (wall, CPU) seconds of each command over ``pairs`` runs."""
    base = [str(campaign), "--storage", url]
    got: dict[str, list[tuple[float, float]]] = {k: [] for k in COMMANDS}
    for i in range(pairs):
        for explore, key in (("0", "ask best"), ("1", "ask explore")):
            cpu, wall, out = run(["ask", *base, "--format", "json", "--explore", explore, "--seed", str(seed + i),
                                  "--timeout", "1800s"], env)
            got[key].append((wall, cpu))
            ref = json.loads(out)["trial"]
            if not ref:
                raise SystemExit(f"{key}: fell back to {json.loads(out)['source']} (no trial)")
            cpu, wall, _ = run(["tell", *base, "--trial", ref, "--value", "1000", "--timeout", "1800s"], env)
            got["tell"].append((wall, cpu))
        cpu, wall, _ = run(["hints", *base, "--timeout", "1800s"], env)
        got["hints"].append((wall, cpu))
        cpu, wall, _ = run(["status", *base], env)
        got["status"].append((wall, cpu))
    return {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in got.items() if v}


def old_tree(rev: str, into: Path) -> Path:
    """The ``autotune`` package as of ``rev`` (git archive), to run the code path before this change."""
    tar = into / "old.tar"
    subprocess.run(["git", "-C", str(ROOT), "archive", "-o", str(tar), rev, "autotune"], check=True)
    with tarfile.open(tar) as t:
        t.extractall(into / "old", filter="data")
    return into / "old"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.evaluation.ask_scale", description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--stores", nargs="+", default=["sqlite", "postgresql"], choices=["sqlite", "postgresql"])
    ap.add_argument("--old", default=None, help="a git revision: time its code path too (once per size)")
    ap.add_argument("--old-sizes", type=int, nargs="*", default=[1000, 10000])
    ap.add_argument("--server", default=os.environ.get("AUTOTUNE_TEST_POSTGRES_SERVER", "postgresql://postgres@127.0.0.1:5432"))
    args = ap.parse_args(argv)
    rows: list[tuple[str, int, str, dict[str, tuple[float, float]]]] = []
    with tempfile.TemporaryDirectory(prefix="askscale-") as tmp:
        campaign = production_campaign(Path(tmp))
        env = {**os.environ, "AUTOTUNE_CACHE_DIR": str(Path(tmp) / "cache"), "PYTHONWARNINGS": "ignore",
               "PYTHONPATH": str(ROOT)}
        old_env = {**env, "PYTHONPATH": str(old_tree(args.old, Path(tmp)))} if args.old else None
        for e in (env, old_env or env):  # each code path really is the one it is labelled
            where = subprocess.run([sys.executable, "-c", "import autotune; print(autotune.__file__)"], env=e,
                                   cwd=e["PYTHONPATH"], capture_output=True, text=True, check=True).stdout
            assert where.startswith(e["PYTHONPATH"]), where
        for kind in args.stores:
            def one(url: str, kind: str = kind) -> None:
                _, _, out = run(["ask", str(campaign), "--storage", url, "--format", "json", "--timeout", "600s"], env)
                run(["tell", str(campaign), "--storage", url, "--trial", json.loads(out)["trial"], "--value", "900",
                     "--timeout", "600s"], env)
                study_name = json.loads(out)["trial"].split(":")[0]
                for size in args.sizes:
                    t0 = time.monotonic()
                    grow_study(url, study_name, size, seed=size)
                    print(f"# {kind}: grown to {size} trials in {time.monotonic() - t0:.0f} s", flush=True)
                    rows.append((kind, size, "new", measure(campaign, url, args.pairs, env, seed=size)))
                    _print_row(rows[-1])
                    if old_env is not None and size in args.old_sizes:
                        rows.append((kind, size, f"old ({args.old})", measure(campaign, url, 1, old_env, seed=size)))
                        _print_row(rows[-1])

            _with_store(kind, Path(tmp), args.server, one)
    _print(rows, args.pairs)
    return 0


def _with_store(kind: str, tmp: Path, server: str, fn: Callable[[str], None]) -> None:
    if kind == "sqlite":
        fn(f"sqlite:///{tmp}/scale.db")
        return
    with fresh_postgres_database(server, f"askscale_{uuid.uuid4().hex[:10]}") as url:
        fn(url)


def _print_row(row: tuple[str, int, str, dict[str, tuple[float, float]]]) -> None:
    kind, size, code, r = row
    cells = " | ".join(f"{r[k][0]:.2f} ({r[k][1]:.2f})" if k in r else "-" for k in COMMANDS)
    print(f"| {kind} | {size:,} | {code} | {cells} |", flush=True)


def _print(rows: list[tuple[str, int, str, dict[str, tuple[float, float]]]], pairs: int) -> None:
    print(f"\nseconds, wall (CPU); new code: median of {pairs} runs of each command, old code: one run")
    print("| store | trials | code | " + " | ".join(COMMANDS) + " |\n|---|---|---|" + "---|" * len(COMMANDS))
    for row in rows:
        _print_row(row)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    sys.exit(main())

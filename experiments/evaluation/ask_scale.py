"""What ``ask``, ``tell``, ``hints`` and ``status`` cost as a production study grows to 1k, 10k and 100k trials,
on SQLite and PostgreSQL, side by side with the code path before bounded reads (``--old REV``).

    .venv/bin/python -m experiments.evaluation.ask_scale --sizes 1000 10000 100000 --pairs 3 --old REV --old-sizes 100000 \
        --keep-stores ~/.cache/autotune-askscale

The study is set up by a real ``ask``/``tell``; its history is then bulk-created in Optuna's own tables
(completed production trials with random configurations of the space and values around 1 GiB/s, exactly
the rows Optuna writes for a told trial), and at each size the real command-line processes are timed:
``ask --explore 0`` (the best known), ``ask --explore 1`` (a new configuration judged by the policy),
``tell``, ``hints`` and ``status``. Each figure is the median wall and CPU (user+sys of the process, Python
start-up included) over ``--pairs`` runs; the old code path runs once per size (it takes tens of seconds at
10k trials). The first ``ask`` after each growth is also timed on its own (``ask rebuild``): it rebuilds the
study's best-trial record from every trial, which later commands only catch up. Each row ends with the
one-minute load average while it was measured: on a shared machine compare CPU, not wall.

``--keep-stores DIR`` keeps each bulk-grown store (SQLite: ``DIR/sqlite-SIZE.db``; PostgreSQL: database
``askscale_cache_SIZE`` on ``--server``) and a later run with the same DIR starts each size from a copy of it
instead of growing the study again: re-timing on an idle machine takes minutes, not the growth.
Byte-compiled modules are written first (``compileall``), as an installed package has them.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
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
COMMANDS = ("ask rebuild", "ask best", "ask explore", "tell", "hints", "status")
CACHE_DB = "askscale_cache_{size}"


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
    med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in got.items() if v}
    return {**med, "load": (os.getloadavg()[0], 0.0)}


def first_ask(campaign: Path, url: str, env: dict[str, str]) -> tuple[float, float]:
    """The first ``ask`` after the history grew: it rebuilds the best-trial record (wall, CPU)."""
    cpu, wall, out = run(["ask", str(campaign), "--storage", url, "--format", "json", "--explore", "0",
                          "--timeout", "1800s"], env)
    run(["tell", str(campaign), "--storage", url, "--trial", json.loads(out)["trial"], "--value", "1000",
         "--timeout", "1800s"], env)
    return wall, cpu


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
    ap.add_argument("--keep-stores", type=Path, default=None, metavar="DIR",
                    help="keep the grown stores there (and start from them when they are)")
    ap.add_argument("--server", default=os.environ.get("AUTOTUNE_TEST_POSTGRES_SERVER", "postgresql://postgres@127.0.0.1:5432"))
    args = ap.parse_args(argv)
    if any(size <= 0 for size in args.sizes) or args.pairs <= 0:
        ap.error("--sizes and --pairs: positive numbers")
    rows: list[tuple[str, int, str, dict[str, tuple[float, float]]]] = []
    with tempfile.TemporaryDirectory(prefix="askscale-") as tmp:
        campaign = production_campaign(Path(tmp))
        env = {**os.environ, "AUTOTUNE_CACHE_DIR": str(Path(tmp) / "cache"), "PYTHONWARNINGS": "ignore",
               "PYTHONPATH": str(ROOT)}
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its byte code: so do both trees here
        old_env = {**env, "PYTHONPATH": str(old_tree(args.old, Path(tmp)))} if args.old else None
        for e in (env, old_env or env):  # each code path really is the one it is labelled
            subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(e["PYTHONPATH"]) / "autotune")],
                           env=e, check=True)
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
                    how = _grown(kind, url, study_name, size, args.keep_stores, args.server)
                    print(f"# {kind}: {how} {size} trials in {time.monotonic() - t0:.0f} s", flush=True)
                    rebuild = first_ask(campaign, url, env)
                    rows.append((kind, size, "new", {"ask rebuild": rebuild,
                                                     **measure(campaign, url, args.pairs, env, seed=size)}))
                    _print_row(rows[-1])
                    if old_env is not None and size in args.old_sizes:
                        rows.append((kind, size, f"old ({args.old})", measure(campaign, url, 1, old_env, seed=size)))
                        _print_row(rows[-1])

            _with_store(kind, Path(tmp), args.server, one)
    _print(rows, args.pairs)
    return 0


def _grown(kind: str, url: str, study_name: str, size: int, keep: Path | None, server: str) -> str:
    """The study grown to ``size`` trials: from the kept store of that size when there is one, else by bulk
    inserts (then kept, with ``keep``). Returns how."""
    if kind == "sqlite":
        db = Path(url.removeprefix("sqlite:///"))
        kept = keep / f"sqlite-{size}.db" if keep is not None else None
        if kept is not None and kept.is_file():
            shutil.copyfile(kept, db)
            return "copied the kept store of"
        grow_study(url, study_name, size, seed=size)
        if kept is not None:
            kept.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(db, kept)
        return "grown to"
    work = url.rsplit("/", 1)[1]
    kept_db = CACHE_DB.format(size=size)
    if keep is not None and _pg_has(server, kept_db):
        _pg(server, f'DROP DATABASE "{work}" WITH (FORCE)', f'CREATE DATABASE "{work}" TEMPLATE "{kept_db}"')
        return "copied the kept database of"
    grow_study(url, study_name, size, seed=size)
    if keep is not None:
        _pg(server, f'DROP DATABASE IF EXISTS "{kept_db}"', f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            f"WHERE datname = '{work}' AND pid <> pg_backend_pid()", f'CREATE DATABASE "{kept_db}" TEMPLATE "{work}"')
    return "grown to"


def _pg(server: str, *statements: str) -> None:
    from sqlalchemy import create_engine, text
    from sqlalchemy.pool import NullPool

    admin = create_engine(f"{server.rstrip('/')}/postgres", poolclass=NullPool, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            for sql in statements:
                conn.execute(text(sql))
    finally:
        admin.dispose()


def _pg_has(server: str, name: str) -> bool:
    from sqlalchemy import create_engine, text
    from sqlalchemy.pool import NullPool

    admin = create_engine(f"{server.rstrip('/')}/postgres", poolclass=NullPool)
    try:
        with admin.connect() as conn:
            return conn.execute(text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": name}).first() is not None
    finally:
        admin.dispose()


def _with_store(kind: str, tmp: Path, server: str, fn: Callable[[str], None]) -> None:
    if kind == "sqlite":
        fn(f"sqlite:///{tmp}/scale.db")
        return
    with fresh_postgres_database(server, f"askscale_{uuid.uuid4().hex[:10]}") as url:
        fn(url)


def _print_row(row: tuple[str, int, str, dict[str, tuple[float, float]]]) -> None:
    kind, size, code, r = row
    cells = " | ".join(f"{r[k][0]:.2f} ({r[k][1]:.2f})" if k in r else "-" for k in COMMANDS)
    load = f"{r['load'][0]:.1f}" if "load" in r else "-"
    print(f"| {kind} | {size:,} | {code} | {cells} | {load} |", flush=True)


def _print(rows: list[tuple[str, int, str, dict[str, tuple[float, float]]]], pairs: int) -> None:
    print(f"\nseconds, wall (CPU = user+sys of the process); new code: median of {pairs} runs of each command "
          "(ask rebuild: one run), old code: one run; load: the one-minute load average during the row")
    print("| store | trials | code | " + " | ".join(COMMANDS) + " | load |\n|---|---|---|" + "---|" * (len(COMMANDS) + 1))
    for row in rows:
        _print_row(row)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    sys.exit(main())

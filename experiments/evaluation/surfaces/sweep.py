"""Measure real local surfaces with the product's own machinery: one `grid` campaign per round.

    PYTHONPATH=$PWD python -m experiments.evaluation.surfaces.sweep --rounds 5 --work /tmp/autotune-sweep

Every (kernel, file system) surface is swept over a documented grid of the local space (``GRID``:
18 configurations) in ``--rounds`` rounds; each round is one ``autotune tune`` of a grid campaign
(``repeats: 1``, the grid's order shuffled by the round's seed) and the surfaces are visited in a
shuffled order each round, so drift and load hit all configurations alike. Every repetition is
appended to ``experiments/evaluation/surfaces/<surface>.csv`` with the machine's description, the load and the
exact command in the header. Re-running the command resumes (finished rounds are kept).
"""

from __future__ import annotations

import argparse
import csv
import os
import platform
import random
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]  # the checkout

# The kernels (16 MiB written per run, 4 ranks) and the file systems swept.
KERNELS: dict[str, dict[str, Any]] = {
    "ior-contiguous": {"kernel": "ior", "args": {"block_size": "4MiB", "transfer_size": "1MiB",
                                                  "layout": "contiguous", "phases": ["write"]}},
    "ior-strided": {"kernel": "ior", "args": {"block_size": "4MiB", "transfer_size": "64KiB",
                                               "layout": "strided", "phases": ["write"]}},
    "h5write-column": {"kernel": "h5write", "args": {"size": "16MiB", "decomposition": "column",
                                                     "phases": ["write"]}},
    "h5write-row": {"kernel": "h5write", "args": {"size": "16MiB", "decomposition": "row", "phases": ["write"]}},
    "vpic": {"kernel": "vpic", "args": {"particles_per_rank": 131072, "phases": ["write"]}},
}
FILESYSTEMS = ("disk", "shm")
RANKS = 4

# The documented grid of the local-romio space (its defaults included): 3 x 3 x 2 = 18 configurations;
# cb_buffer_size stays at its default (16 MiB: a run writes 16 MiB). MPI-IO kernels vary data sieving,
# HDF5 kernels the HDF5 alignment.
_COMMON = {
    "mpiio.romio_cb_write": {"type": "categorical", "choices": ["automatic", "enable", "disable"],
                             "default": "automatic"},
    "mpiio.cb_nodes": {"type": "pow2", "low": 1, "high": RANKS, "default": 1},
}
GRID_MPIIO = {**_COMMON, "mpiio.romio_ds_write": {"type": "categorical", "choices": ["automatic", "disable"],
                                                  "default": "automatic"}}
GRID_HDF5 = {**_COMMON, "hdf5.alignment": {"type": "categorical", "choices": [1, 1 << 20], "default": 1}}


def surface_names() -> list[str]:
    return [f"{k}-{fs}" for k in KERNELS for fs in FILESYSTEMS]


def campaign(surface: str, round_: int) -> dict[str, Any]:
    """The grid campaign of one round of one surface (what ``autotune tune`` runs)."""
    kernel, fs = surface.rsplit("-", 1)
    app = {**KERNELS[kernel], "ranks": RANKS}
    grid = GRID_HDF5 if app["kernel"] in ("h5write", "vpic") else GRID_MPIIO
    only = sorted(grid)
    return {
        "name": f"sweep-{surface}-r{round_}",
        "description": f"surface sweep {surface}, round {round_}",
        "app": app, "system": "local", "target": {"filesystem": fs},
        "space": {"use": "local-romio", "only": only, "parameters": grid},
        "objective": {"metric": "write_bandwidth_mib_s", "direction": "maximize", "repeats": 1},
        "budget": {"trials": 19, "run_timeout": "120s"},  # the grid + the enqueued default
        "sampler": {"name": "grid", "seed": round_},
        "launcher": {"name": "local"},
        "tracking": {"enabled": False},
    }


def machine() -> str:
    """One line describing this machine and its MPI/HDF5 stack."""
    def cmd(argv: list[str]) -> str:
        try:
            return subprocess.run(argv, capture_output=True, text=True, timeout=20).stdout.strip().splitlines()[0]
        except (OSError, IndexError, subprocess.SubprocessError):
            return "?"
    cpu = next((ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
                if ln.startswith("model name")), "?")
    import h5py
    import mpi4py

    return (f"{platform.node()} {platform.system()} {platform.release()}; cpu {cpu} x{os.cpu_count()}; "
            f"{cmd(['mpichversion'])}; mpi4py {mpi4py.__version__}; h5py {h5py.__version__} "
            f"(HDF5 {h5py.version.hdf5_version}, mpi={h5py.get_config().mpi}); python {platform.python_version()}")


FIELDS = ["round", "visit", "trial", "config", "value", "wall_s", "load1", "started"]


def _rows(db: Path, name: str, round_: int, visit: int, load1: float, started: str) -> list[dict[str, Any]]:
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.load_study(study_name=name, storage=f"sqlite:///{db}")
    rows = []
    for t in study.get_trials(deepcopy=False):
        reps = t.user_attrs.get("repetitions") or []
        info = t.user_attrs.get("run_info") or []
        cfg = t.user_attrs.get("config") or {k: v for k, v in t.params.items()}
        for i, value in enumerate(reps or [None]):
            rows.append({"round": round_, "visit": visit, "trial": t.number, "config": _config_key(cfg),
                         "value": "" if value is None else f"{value:.3f}",
                         "wall_s": info[i].get("wall_s", "") if i < len(info) else "",
                         "load1": f"{load1:.2f}", "started": started})
    return rows


def _config_key(params: dict[str, Any]) -> str:
    """``name=value;...`` with Optuna's ``log2(x)`` decoded to x's value."""
    out = {}
    for k, v in params.items():
        if k.startswith("log2(") and k.endswith(")"):
            out[k[5:-1]] = 2 ** int(v)
        else:
            out[k] = v
    return ";".join(f"{k}={out[k]}" for k in sorted(out))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--work", type=Path, default=Path("/tmp/autotune-sweep"))
    ap.add_argument("--out", type=Path, default=HERE)
    ap.add_argument("--only", nargs="*", default=None, help="surfaces to sweep (default: all)")
    a = ap.parse_args(argv)
    surfaces = a.only or surface_names()
    command = "python -m experiments.evaluation.surfaces.sweep " + shlex.join(sys.argv[1:] if argv is None else argv)
    desc = machine()
    a.work.mkdir(parents=True, exist_ok=True)
    a.out.mkdir(parents=True, exist_ok=True)
    for round_ in range(1, a.rounds + 1):
        order = surfaces[:]
        random.Random(round_).shuffle(order)
        for visit, surface in enumerate(order):
            out = a.out / f"{surface}.csv"
            done = _done(out)
            if round_ in done:
                continue
            c = campaign(surface, round_)
            d = a.work / c["name"]
            d.mkdir(parents=True, exist_ok=True)
            cf = d / "campaign.yaml"
            cf.write_text(yaml.safe_dump(c, sort_keys=False))
            load1 = os.getloadavg()[0]
            started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            run = [sys.executable, "-m", "autotune.cli", "tune", str(cf), "--workdir", str(d), "--no-tracking"]
            t0 = time.monotonic()
            p = subprocess.run(run, cwd=ROOT, capture_output=True, text=True)
            if p.returncode != 0:
                print(f"{c['name']}: exit {p.returncode}: {p.stderr.strip()[-300:]}", file=sys.stderr)
                continue
            rows = _rows(d / "optuna.db", c["name"], round_, visit, load1, started)
            _append(out, rows, desc, command, c)
            print(f"round {round_} {surface}: {len(rows)} runs in {time.monotonic() - t0:.0f} s (load {load1:.2f})",
                  flush=True)
    return 0


def _done(path: Path) -> set[int]:
    if not path.exists():
        return set()
    with path.open() as f:
        return {int(r["round"]) for r in csv.DictReader(ln for ln in f if not ln.startswith("#"))}


def _append(path: Path, rows: list[dict[str, Any]], desc: str, command: str, c: dict[str, Any]) -> None:
    new = not path.exists()
    with path.open("a", newline="") as f:
        if new:
            camp = dict(c, name="sweep-<surface>-r<round>", sampler={"name": "grid", "seed": "<round>"})
            f.write(f"# metric: {c['objective']['metric']}\n# machine: {desc}\n# command: {command}\n")
            f.write(f"# campaign (one per round): {yaml.safe_dump(camp, default_flow_style=True, width=10**6).strip()}\n")
        w = csv.DictWriter(f, FIELDS)
        if new:
            w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    raise SystemExit(main())

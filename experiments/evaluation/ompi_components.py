"""Open MPI's MPI-IO components on this machine: OMPIO out of the box vs ``fcoll=individual`` vs ROMIO (romio321).

    python experiments/evaluation/ompi_components.py [--ranks 2 4] [--rounds 5] [--block 32MiB] [--dir DIR] [--seed 1]

The IOR-like kernel (shared file, 1 MiB collective writes, contiguous blocks per rank, open→write→sync→close on
the slowest rank; data in a temporary directory, on the local disk here) under ``mpiexec.openmpi`` with the
Open MPI virtual environment's mpi4py (``make setup-ompi``).
Each round runs every (ranks, configuration) once in a shuffled order (seeded), so load drift hits all alike.
Prints per configuration the median, min and max write MiB/s over the rounds, the ranks that wrote and the
verification states. Tolerance, stated before comparing: a ratio of medians within the configurations' own
spread (max/min of the rounds of either one) is called "no difference".
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from autotune.testing import MISSING_OPENMPI, openmpi_stack

CONFIGS: dict[str, dict[str, str]] = {
    "OMPIO default": {},
    "OMPIO fcoll=individual": {"OMPI_MCA_fcoll": "individual"},
    "romio321 default": {"OMPI_MCA_io": "romio321"},
}


def run_once(ranks: int, block: str, directory: str, env: dict[str, str]) -> dict[str, Any]:
    stack = openmpi_stack()
    if stack is None:
        raise SystemExit(MISSING_OPENMPI)
    cmd = [*stack.argv(ranks), stack.python, "-m", "mpi4py", "-m", "autotune.kernels.ior", "--block-size", block,
           "--transfer-size", "1MiB", "--phases", "write", "--dir", directory]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900, check=False,
                          env={**stack.environ(), **env})
    if proc.returncode != 0:
        raise SystemExit(f"kernel failed ({proc.returncode}): {proc.stderr[-500:]}")
    rec: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return rec


def measure(ranks: list[int], rounds: int, block: str, directory: str, seed: int) -> dict[str, list[dict[str, Any]]]:
    rng = random.Random(seed)
    cells = [(r, name) for r in ranks for name in CONFIGS]
    out: dict[str, list[dict[str, Any]]] = {f"{r}|{name}": [] for r, name in cells}
    for i in range(rounds):
        order = cells[:]
        rng.shuffle(order)
        for r, name in order:
            rec = run_once(r, block, directory, CONFIGS[name])
            out[f"{r}|{name}"].append(rec)
            print(f"round {i + 1} {r} ranks {name:24s} {rec['phases']['write']['bandwidth_mib_s']:8.1f} MiB/s",
                  flush=True)
    return out


def table(results: dict[str, list[dict[str, Any]]], block: str, rounds: int) -> str:
    lines = [f"IOR-like kernel under Open MPI 4.1, shared file, {block} per rank in 1 MiB collective writes, "
             f"{rounds} shuffled rounds; write MiB/s (slowest rank, incl. sync)",
             "| ranks | configuration | median | min | max | x OMPIO default | writers | verification |",
             "|---|---|---|---|---|---|---|---|"]
    for key, recs in results.items():
        ranks, name = key.split("|")
        bw = [r["phases"]["write"]["bandwidth_mib_s"] for r in recs]
        base = [r["phases"]["write"]["bandwidth_mib_s"] for r in results[f"{ranks}|OMPIO default"]]
        ratio = statistics.median(bw) / statistics.median(base)
        spread = max(max(bw) / min(bw), max(base) / min(base))
        verdict = f"{ratio:.2f}" + ("" if name == "OMPIO default" else
                                    " (no difference)" if 1 / spread <= ratio <= spread else "")
        writers = sorted({r["writers"] for r in recs})
        states = sorted({f"{k}: {v['state']}" for r in recs for k, v in r["verification"].items()}) or ["-"]
        lines.append(f"| {ranks} | {name} | {statistics.median(bw):.0f} | {min(bw):.0f} | {max(bw):.0f} | {verdict} "
                     f"| {'/'.join(map(str, writers))} | {'; '.join(states)} |")
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--ranks", type=int, nargs="+", default=[2, 4])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--block", default="32MiB")
    p.add_argument("--dir", default=None, help="data directory on the disk to measure (default: a temporary one)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", type=Path, default=None, help="also write the table to this file")
    a = p.parse_args()
    with tempfile.TemporaryDirectory(dir=a.dir) as directory:  # default: the system's temporary directory
        results = measure(a.ranks, a.rounds, a.block, directory, a.seed)
    text = table(results, a.block, a.rounds)
    print(text)
    if a.out:
        a.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

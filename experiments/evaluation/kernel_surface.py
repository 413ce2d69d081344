"""Collective buffering surface of the h5write kernel on this machine (PLATFORM.md's table, re-measured).

    .venv/bin/python experiments/evaluation/kernel_surface.py [--ranks 4] [--size 256MiB] [--repeats 3] [--dir .]

Column-decomposed float64 array, collective h5py writes (strided in the file), open→write→sync→close
on the slowest rank; configurations run round-robin so drift hits all of them alike. Prints a table
of median/min/max write MiB/s, the aggregators really used and any hint that did not take effect.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from typing import Any

CONFIGS: dict[str, dict[str, str]] = {
    "cb enable, cb_nodes=1": {"romio_cb_write": "enable", "cb_nodes": "1"},
    "cb enable, cb_nodes=4, *:*": {"romio_cb_write": "enable", "cb_nodes": "4", "cb_config_list": "*:*"},
    "cb disable": {"romio_cb_write": "disable"},
}


def run_once(ranks: int, size: str, directory: str, hints: dict[str, str]) -> dict[str, Any]:
    """One kernel run; its record."""
    cmd = ["mpiexec", "-n", str(ranks), sys.executable, "-m", "mpi4py", "-m", "autotune.kernels.h5write",
           "--size", size, "--decomposition", "column", "--io-mode", "collective", "--phases", "write",
           "--dir", directory]
    for key, value in hints.items():
        cmd += ["--info", f"{key}={value}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900, check=False)
    if proc.returncode != 0:
        err = [line for line in proc.stderr.splitlines() if "yaksa" not in line]
        raise SystemExit(f"kernel failed ({proc.returncode}): {' | '.join(err[-3:])}")
    return json.loads(proc.stdout)


def main() -> None:
    """Run every configuration ``--repeats`` times and print the table."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ranks", type=int, default=4)
    p.add_argument("--size", default="256MiB")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--dir", default=".")
    a = p.parse_args()
    results: dict[str, list[dict[str, Any]]] = {name: [] for name in CONFIGS}
    for rep in range(a.repeats):
        for name, hints in CONFIGS.items():
            rec = run_once(a.ranks, a.size, a.dir, hints)
            results[name].append(rec)
            print(f"rep {rep + 1} {name:28s} {rec['phases']['write']['bandwidth_mib_s']:8.1f} MiB/s", file=sys.stderr)
    print(f"h5write {a.size}, {a.ranks} ranks, column decomposition, collective; write MiB/s over {a.repeats} runs")
    print(f"| {'configuration':28s} | aggregators | median | min | max | hints not in effect |")
    print(f"|{'-' * 30}|-------------|--------|-----|-----|---------------------|")
    for name, recs in results.items():
        bw = [r["phases"]["write"]["bandwidth_mib_s"] for r in recs]
        aggs = sorted({r["aggregators"] for r in recs})
        missing = sorted({k for r in recs for k in r["hints_not_in_effect"]}) or ["-"]
        print(f"| {name:28s} | {'/'.join(map(str, aggs)):11s} | {statistics.median(bw):6.0f} | {min(bw):3.0f} "
              f"| {max(bw):3.0f} | {', '.join(missing):19s} |")


if __name__ == "__main__":
    main()

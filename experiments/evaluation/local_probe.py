"""Probe this machine's fixed costs for the POSIX model: collectives, per-file costs, one file's write-back.

    PYTHONPATH=$PWD .venv/bin/python -m experiments.evaluation.local_probe [--dir DIR] [--out FILE]

No built-in kernel runs here: this measures what the kernels' data movement does not show, the way
fio measures the device (``posix_bw``), and prints the values behind the local profile's constants and
the model's collective counts (``autotune/model/_constants.py``). A site's own constants come from
``autotune site profile`` (``autotune.systems.probe``), whose write-back and page-cache steps this uses; the
library's collective counts below (MPI-IO and HDF5 as barriers) are this script's alone:

- ``oversub_slice``: one MPI_Barrier's seconds at 3, 4 and 8 ranks on this node's cores, divided by
  ranks per core (MPICH's ranks busy-poll: on an oversubscribed node a collective waits for the scheduler);
- the collectives of a shared file's MPI_File_open + _sync + _close (no data), of a parallel HDF5
  file's create + flush + close (no dataset), of each dataset's create + a collective write of 4 bytes
  per rank, and of one two-phase (``romio_cb_write=enable``) call of 4 bytes per rank, each as its
  seconds over one barrier's seconds at the same rank count (4);
- ``posix_latency`` and ``page_cache_bw``: one process's 4 KiB and 4 MiB buffered writes (no fsync);
- ``exchange_bw``: 16 MiB messages exchanged by rank pairs (MPI_Sendrecv) at 2 ranks (and at 4, oversubscribed);
- ``posix_file_bw`` and ``posix_bw``: 64 MiB written and fsync'd to one file by one process, and four
  processes doing so to four files at once, on the disk (``--dir``) and on ``/dev/shm``.
Each figure is the median of ``--reps`` repetitions. Output: experiments/evaluation/results/local_probe.txt.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from autotune.systems import page_cache_rates, writeback_rate
from experiments.evaluation.evalkit.transcript import Transcript

ROOT = Path(__file__).resolve().parents[2]  # the checkout
RESULTS = ROOT / "experiments" / "evaluation" / "results"
MIB = 1 << 20


def mpi(ranks: int, what: str, work: Path, reps: int) -> float:
    """One measurement of ``experiments/evaluation/local_probe_ranks.py`` on ``ranks`` ranks."""
    sub = work / f"{what}-{ranks}"
    sub.mkdir(exist_ok=True)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    out = subprocess.run(["mpiexec", "-n", str(ranks), sys.executable, "-m", "experiments.evaluation.local_probe_ranks", str(sub),
                          str(reps), what], capture_output=True, text=True, timeout=600, check=True, env=env).stdout
    return float(out.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", type=Path, default=None, help="where to write (default: a temporary folder here)")
    ap.add_argument("--shm", default="/dev/shm", help="the memory-backed file system (the local profile's shm)")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--out", type=Path, default=RESULTS / "local_probe.txt")
    a = ap.parse_args(argv)
    transcript = Transcript()
    say = transcript.say

    cores = os.cpu_count() or 1
    with tempfile.TemporaryDirectory(dir=a.dir or ROOT) as tmp:
        work = Path(tmp)
        say(f"load average at start: {os.getloadavg()}; cores {cores}")
        barrier = {n: mpi(n, "barrier", work, a.reps) for n in (2, 3, 4, 8)}
        for n, t in barrier.items():
            say(f"MPI_Barrier, {n} ranks: {t * 1e3:.3g} ms" + (f" = {t / (n / cores) * 1e3:.3g} ms per rank per core"
                                                                 if n > cores else ""))
        slices = [t / (n / cores) for n, t in barrier.items() if n > cores]
        one = barrier[4]
        mpiio = mpi(4, "mpiio", work, a.reps)
        two = mpi(4, "twophase", work, a.reps)
        h0, h8 = mpi(4, "h50", work, a.reps), mpi(4, "h58", work, a.reps)
        p2p = {n: mpi(n, "p2p", work, a.reps) for n in (2, 4)}
        for n, bw in p2p.items():
            say(f"point-to-point, {n} ranks in pairs, 16 MiB messages: {bw / 1e9:.3g} GB/s per rank")
        say(f"shared file open+sync+close (4 ranks): {mpiio * 1e3:.3g} ms = {mpiio / one:.2g} barriers")
        say(f"two-phase call of 4 B per rank (4 ranks): {two * 1e3:.3g} ms = {two / one:.2g} barriers")
        say(f"HDF5 file create+flush+close (4 ranks): {h0 * 1e3:.3g} ms = {h0 / one:.2g} barriers")
        say(f"HDF5 dataset create + collective write: {(h8 - h0) / 8 * 1e3:.3g} ms = {(h8 - h0) / 8 / one:.2g} barriers")
        say(f"profile value: oversub_slice {statistics.median(slices):.3g} s")
        lat, copy = page_cache_rates(work, a.reps)
        say(f"page cache (one process, no fsync): a 4 KiB pwrite {lat * 1e6:.3g} us -> posix_latency {lat:.3g};"
            f" 4 MiB writes {copy / 1e9:.3g} GB/s -> page_cache_bw {copy:.3g}")
        for fs, where in (("disk", work), ("shm", Path(a.shm))):
            if not where.is_dir():
                say(f"{fs}: {where} is not a folder: skipped")
                continue
            with tempfile.TemporaryDirectory(dir=where) as sub:
                file_bw = writeback_rate(Path(sub), 1, 64 * MIB, a.reps)
                device_bw = writeback_rate(Path(sub), 4, 64 * MIB, a.reps)
            say(f"{fs} write-back ({where}): one file {file_bw / 1e9:.3g} GB/s; four files at once"
                f" {device_bw / 1e9:.3g} GB/s -> posix_file_bw {file_bw:.3g}, posix_bw {device_bw:.3g}")
        say(f"load average at end: {os.getloadavg()}")
    transcript.write(a.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

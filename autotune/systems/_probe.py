"""A short probe of this node for the model's site constants (a minute or less; what the kernels' data movement
does not show, the way fio measures a device):

- the cost of a collective: one MPI_Alltoall of offsets at up to ``cores`` ranks -> ``sync_per_rank``;
- cores vs ranks: one MPI_Barrier beyond the cores (busy-polling ranks wait for the scheduler) ->
  ``oversub_slice``, seconds per ranks-per-core;
- message rate: 16 MiB messages between two ranks -> ``exchange_bw``;
- the page cache: one process's 4 KiB and 4 MiB buffered writes -> ``posix_latency``, ``page_cache_bw``;
- write-back: one file written and fsync'd by one process -> ``posix_file_bw``; ``min(4, cores)`` files at
  once -> ``posix_bw`` (the device).

Each figure is the best of ``reps`` repetitions: the one least disturbed by other work on the node ("run several
iterations, best result usually represents least jitter": ALCF, Parallel I/O on Theta), so a profile written on
a busy node describes the node more than its load (the load average is recorded beside it). A step that does
not fit the time budget, or fails, is left out with the reason (the profile then assumes the model's default).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from autotune.systems.detect import _run

MIB = 1 << 20
PROBE_MODULE = "autotune.kernels.siteprobe"
MAX_OVERSUBSCRIBED = 64  # ranks: beyond this the oversubscription step is skipped (too many interpreters)


@dataclass(frozen=True)
class Measured:
    """One probe figure: the model constant it sets, its value and how it was measured."""

    constant: str
    value: float
    how: str


@dataclass
class ProbeResult:
    """What the probe measured (``system``: top-level model constants, ``filesystem``: the target's) and skipped."""

    system: list[Measured] = field(default_factory=list)
    filesystem: list[Measured] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    seconds: float = 0.0


@dataclass(frozen=True)
class ProbeSetup:
    """How to start ranks: the launcher's ``mpiexec`` and its arguments, the interpreter, the environment."""

    mpiexec: str = "mpiexec"
    mpiexec_args: Sequence[str] = ()
    python: str = sys.executable
    env: Mapping[str, str] | None = None


def _mpi(setup: ProbeSetup, ranks: int, what: str, reps: int, timeout: float) -> float:
    env = dict(os.environ if setup.env is None else setup.env)
    if os.geteuid() == 0:  # Open MPI's mpiexec refuses root without these
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    argv = [setup.mpiexec, "-n", str(ranks), *setup.mpiexec_args, setup.python, "-m", "mpi4py", "-m",
            PROBE_MODULE, str(reps), what]
    code, out, err = _run(argv, env, timeout)
    lines = out.strip().splitlines()
    if code != 0 or not lines:
        last = (err.strip().splitlines() or [f"exit status {code}"])[-1]
        raise RuntimeError(f"{what} at {ranks} ranks: {last.strip()[:160]}")
    return float(lines[-1])


def writeback_rate(folder: Path, files: int, nbytes: int, reps: int, best: bool = False) -> float:
    """Bytes/s of ``files`` processes each writing and fsyncing ``nbytes`` to its own file, started together:
    the median over ``reps``, or with ``best`` the fastest."""
    rates = []
    buf = b"\x5a" * MIB
    for r in range(reps):
        paths = [folder / f"wb{r}-{k}.dat" for k in range(files)]
        pids = []
        start = time.monotonic()
        for path in paths:
            pid = os.fork()
            if pid == 0:  # the child writes its file and leaves without running any cleanup of the parent
                code = 1
                try:
                    fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
                    for _ in range(nbytes // MIB):
                        os.write(fd, buf)
                    os.fsync(fd)
                    os.close(fd)
                    code = 0
                finally:
                    os._exit(code)
            pids.append(pid)
        failed = [pid for pid in pids if os.waitpid(pid, 0)[1] != 0]
        elapsed = time.monotonic() - start
        for path in paths:
            path.unlink(missing_ok=True)
        if failed:
            raise OSError(f"writing {folder}: {len(failed)} of {files} writer(s) failed")
        rates.append(files * nbytes / elapsed)
    return max(rates) if best else statistics.median(rates)


def page_cache_rates(folder: Path, reps: int, best: bool = False) -> tuple[float, float]:
    """(seconds per 4 KiB pwrite into the page cache, bytes/s of 4 MiB buffered writes): one process, no fsync;
    the medians over ``reps``, or with ``best`` the fastest."""
    lat, bw = [], []
    small, big = b"\x5a" * 4096, b"\x5a" * (4 * MIB)
    for r in range(reps):
        path = folder / f"pc{r}.dat"
        fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
        try:
            t0 = time.perf_counter()
            for k in range(2048):
                os.pwrite(fd, small, k * 4096)
            lat.append((time.perf_counter() - t0) / 2048)
            t0 = time.perf_counter()
            for k in range(32):
                os.pwrite(fd, big, 8 * MIB + k * 4 * MIB)
            bw.append(128 * MIB / (time.perf_counter() - t0))
        finally:
            os.close(fd)
            path.unlink(missing_ok=True)
    if best:
        return min(lat), max(bw)
    return statistics.median(lat), statistics.median(bw)


def probe(folder: Path, cores: int, setup: ProbeSetup | None = None, *, mpi: bool = True, reps: int = 5,
          budget: float = 60.0, file_bytes: int = 64 * MIB, say: Callable[[str], None] | None = None,
          writeback_only: bool = False, load: float | None = None) -> ProbeResult:
    """Measure this node (see the module docstring) writing under ``folder``, within about ``budget`` seconds
    (``writeback_only``: only the folder's write-back, for a second file system).

    ``load`` is the node's load average before the probe (default: now): above ``cores`` the other work would
    be measured instead of the collectives' own latency, so those steps are left out (assumed) with the reason.
    """
    setup = setup or ProbeSetup()
    result = ProbeResult()
    t0 = time.monotonic()
    load = os.getloadavg()[0] if load is None else load
    busy = f"the node is busy (load average {load:.3g} on {cores} cores): a latency would measure that load"

    def step(name: str, fn: Callable[[float], None]) -> None:
        left = budget - (time.monotonic() - t0)
        if left <= 1.0:
            result.skipped.append(f"{name}: the probe's {budget:g} s were spent")
            return
        try:
            fn(left)
        except (OSError, RuntimeError, TimeoutError, ValueError) as exc:
            result.skipped.append(f"{name}: {exc}")
        if say is not None:
            say(f"probe: {name} done at {time.monotonic() - t0:.1f} s")

    def collective(left: float) -> None:
        if load > cores:
            raise RuntimeError(busy)
        n = max(2, min(cores, 8))
        t = _mpi(setup, n, "alltoall", reps, left)
        result.system.append(Measured("sync_per_rank", t / n, f"MPI_Alltoall of offsets at {n} ranks: "
                                                               f"{t * 1e6:.3g} us / {n} ranks"))

    def oversubscribed(left: float) -> None:
        if load > cores:
            raise RuntimeError(busy)
        n = 2 * cores
        if n > MAX_OVERSUBSCRIBED:
            raise ValueError(f"{n} ranks would start more than {MAX_OVERSUBSCRIBED} interpreters")
        t = _mpi(setup, n, "barrier", reps, left)
        result.system.append(Measured("oversub_slice", t / (n / cores),
                                      f"MPI_Barrier at {n} ranks on {cores} cores: {t * 1e3:.3g} ms / {n / cores:g}"))

    def messages(left: float) -> None:
        bw = _mpi(setup, 2, "p2p", reps, left)
        result.system.append(Measured("exchange_bw", bw, f"16 MiB MPI_Sendrecv between 2 ranks: {bw / 1e9:.3g} GB/s"))

    def page_cache(left: float) -> None:
        lat, copy = page_cache_rates(folder, reps, best=True)
        result.system.append(Measured("posix_latency", lat, f"4 KiB pwrite into the page cache: {lat * 1e6:.3g} us"))
        result.system.append(Measured("page_cache_bw", copy, f"4 MiB buffered writes: {copy / 1e9:.3g} GB/s"))

    def writeback(left: float) -> None:
        one = writeback_rate(folder, 1, file_bytes, reps, best=True)
        result.filesystem.append(Measured("posix_file_bw", one, f"{file_bytes // MIB} MiB written and fsync'd by "
                                                                f"one process: {one / 1e9:.3g} GB/s"))
        files = max(1, min(4, cores))
        if files > 1 and budget - (time.monotonic() - t0) > 1.0:
            many = writeback_rate(folder, files, file_bytes, reps, best=True)
            result.filesystem.append(Measured("posix_bw", many, f"{files} files at once: {many / 1e9:.3g} GB/s"))

    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="autotune-probe-", dir=folder) as tmp:
        folder = Path(tmp)
        steps: list[tuple[str, Callable[[float], None]]] = [("page cache", page_cache), ("write-back", writeback)]
        if writeback_only:
            steps = steps[1:]
        elif mpi:
            steps = [("collective", collective), ("message rate", messages), ("oversubscription", oversubscribed),
                     *steps]
        for name, fn in steps:
            step(f"{name} ({folder.parent})" if writeback_only else name, fn)
    result.seconds = time.monotonic() - t0
    return result

"""Run CLI commands in many processes released at once (a job array's burst of ``ask``/``tell``).

The processes come from a fork server (``multiprocessing``'s ``forkserver``: a fresh single-threaded
process that has imported ``PRELOAD`` once), never forked from the test process itself, which may
hold threads of gRPC or Ray by then: a child forked from such a process can abort or hang in their locks.
"""

from __future__ import annotations

import contextlib
import io
import multiprocessing as mp
import queue
import time
from typing import Any

# imported once by the fork server, so that each job starts at once (as the processes of a job array would)
PRELOAD = ["autotune.cli", "autotune.service", "autotune.campaign", "optuna", "sqlalchemy", "psycopg2"]


def _cli_process(index: int, args: list[str], barrier: Any, out: Any) -> None:
    """One CLI process of the burst: wait for the others, run the command, hand back (index, exit status, stdout, stderr)."""
    from autotune.cli import main

    buf, err = io.StringIO(), io.StringIO()
    barrier.wait()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(err):
        try:
            code = main(args)
        except SystemExit as exc:
            code = int(exc.code or 0) if not isinstance(exc.code, str) else 2
    out.put((index, code, buf.getvalue(), err.getvalue()))


def cli_at_once(commands: list[list[str]], timeout: float = 900.0) -> list[tuple[int, str, str]]:
    """Run the CLI ``commands`` in as many processes, released together; their (exit status, stdout, stderr)
    in order. A process that dies without an answer, or no answer within ``timeout`` s, is an AssertionError."""
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    barrier, out = ctx.Barrier(len(commands)), ctx.Queue()
    procs = [ctx.Process(target=_cli_process, args=(i, c, barrier, out)) for i, c in enumerate(commands)]
    for p in procs:
        p.start()
    results: dict[int, tuple[int, str, str]] = {}
    deadline = time.monotonic() + timeout
    try:
        while len(results) < len(procs):
            with contextlib.suppress(queue.Empty):
                i, code, stdout, stderr = out.get(timeout=1.0)
                results[i] = (code, stdout, stderr)
                continue
            dead = [(i, p.exitcode) for i, p in enumerate(procs) if i not in results and p.exitcode is not None]
            if dead:
                time.sleep(1.0)  # an answer put just before its process ended is still on its way
                with contextlib.suppress(queue.Empty):
                    while True:
                        i, code, stdout, stderr = out.get_nowait()
                        results[i] = (code, stdout, stderr)
                dead = [(i, c) for i, c in dead if i not in results]
                assert not dead, f"{len(dead)} job(s) ended without an answer: {dead[:5]} (index, exit code)"
            assert time.monotonic() < deadline, f"{len(procs) - len(results)} job(s) gave no answer in {timeout:.0f} s"
    finally:
        for p in procs:
            p.join(timeout=60)
            if p.is_alive():
                p.kill()
    return [results[i] for i in range(len(procs))]

"""The random kill loop, many times with fresh seeds: how often does a resumed campaign repeat a configuration?

    nice .venv/bin/python -m experiments.evaluation.kill_loop --runs 200 --jobs 3

Each run starts a 12-trial campaign (a tiny Python app, the ``local-romio`` space; samplers alternate between
seeded random and TPE), kills it with SIGKILL 4 times at random moments a few trials in, resumes it to the end
and reads the study (``autotune.testing.resume_kill_loop``). One line per run, then the totals: configurations
completed more than once, interrupted trials that did not run again exactly once, failed resumes (a resume that
stops early because the sampler proposed 100 measured configurations in a row is counted apart: a documented
stop, not a finding). A loop mostly
waits (start-up, the random pauses, a resume's wait for a trial nobody claimed), so ``--jobs`` loops run at
once; their load varies the moments of the kills further. A run that
found something prints its kill seed: ``AUTOTUNE_KILL_LOOP_SEED=<seed>`` replays it in
tests/robustness/test_resume_kill.py. Exit 1 if any run found something.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from autotune.testing import SAMPLERS, KillLoopResult, resume_kill_loop


def one(sampler: str, seed: int, kills: int, trials: int, pause: tuple[float, float]) -> KillLoopResult:
    with tempfile.TemporaryDirectory(prefix="kill-loop-") as tmp:
        return resume_kill_loop(Path(tmp), sampler, seed, kills, trials, pause)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.evaluation.kill_loop", description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--sampler", choices=[*SAMPLERS, "both"], default="both", help="both: alternate")
    ap.add_argument("--kills", type=int, default=4, help="kill -9s per run")
    ap.add_argument("--trials", type=int, default=12, help="the campaign's budget")
    ap.add_argument("--jobs", type=int, default=1, help="loops at once")
    ap.add_argument("--pause", type=float, nargs=2, default=(0.3, 2.0), metavar=("LOW", "HIGH"),
                    help="seconds after an app starts before each kill (later kills: more completed configurations)")
    args = ap.parse_args(argv)
    seeds = random.SystemRandom()
    names = list(SAMPLERS) if args.sampler == "both" else [args.sampler]
    repeats = lost = failed = bad_runs = kills = exhausted = 0
    t0 = time.monotonic()
    draws = [(names[i % len(names)], seeds.randrange(1 << 30)) for i in range(args.runs)]
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        futures = [pool.submit(one, sampler, seed, args.kills, args.trials, tuple(args.pause)) for sampler, seed in draws]
        for i, f in enumerate(futures):
            r = f.result()
            kills += r.kills
            repeats += sum(n - 1 for n in r.repeated.values())
            lost += len(r.retries)
            failed += bool(r.error)
            exhausted += r.exhausted
            bad_runs += not r.ok
            print(f"run {i + 1:3d}: {r.line()}", flush=True)
    print(f"{args.runs} runs, {kills} kills, {time.monotonic() - t0:.0f} s: {repeats} repeated configuration(s) "
          f"(completed more than once), {lost} interrupted trial(s) not re-run exactly once, {failed} failed "
          f"resume(s); {bad_runs} run(s) with a finding; {exhausted} stopped as exhausted (not a finding)")
    return 1 if bad_runs else 0


if __name__ == "__main__":
    raise SystemExit(main())

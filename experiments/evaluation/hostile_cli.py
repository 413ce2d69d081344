"""Hostile-input probe of the command line: every case must end in one stderr line and exit 2.

    PYTHONPATH=$PWD .venv/bin/python -m experiments.evaluation.hostile_cli [--out FILE] [--only TEXT]

Each case (``hostile_cli_cases.CASES``, ``hostile_cli_more.MORE``) runs ``python -m autotune.cli ARGV`` as a subprocess in a fresh
folder, against a tiny campaign (a ``python -c`` command printing one JSON metric, the local launcher, one
repetition, no confirmation, no tracking). A case passes when the command exits 2 with exactly one stderr
line (a usage error included: no usage block) that names what the case expects, without "Traceback" or "internal
error", within 60 s, and, for a case run against a study tuned beforehand, with that study's trials
unchanged; a case with its own judge (a run that must succeed, an ``ask`` that must fall back) passes by
that judge instead of exit 2. Each command runs with its data segment bounded (3 GiB: a read without end is a MemoryError, not
the machine's memory). Prints a table case -> exit code -> first stderr line, writes it to ``--out``
(experiments/evaluation/results/hostile_cli.txt) and exits 1 when any case breaks the rule. ``--code DIR``
probes another checkout's autotune (the cases stay this one's), e.g. the code before a fix.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from experiments.evaluation.hostile_cli_cases import CASES as FIRST
from experiments.evaluation.hostile_cli_cases import Case, Env, study_digest
from experiments.evaluation.hostile_cli_more import MORE

CASES = [*FIRST, *MORE]

ROOT = Path(__file__).resolve().parents[2]  # the checkout
RESULTS = ROOT / "experiments" / "evaluation" / "results"
TIMEOUT_S = 60.0
MEMORY_BYTES = 3 << 30  # each command's data segment: a read without end fails (MemoryError) instead of the machine
CODE = [ROOT]  # the checkout whose autotune is probed (--code)


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_DATA, (MEMORY_BYTES, MEMORY_BYTES))


def run_autotune(argv: list[str], cwd: Path) -> tuple[int, str, str]:
    """``python -m autotune.cli ARGV`` in ``cwd``: exit code (-9 on a timeout), stdout, stderr."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(CODE[0]), os.environ.get("PYTHONPATH")])),
           "AUTOTUNE_CACHE_DIR": str(cwd / "cache")}
    env.pop("AUTOTUNE_DEBUG", None)
    env.pop("AUTOTUNE_TRIAL", None)
    env.pop("AUTOTUNE_STORAGE", None)
    try:
        p = subprocess.run([sys.executable, "-m", "autotune.cli", *argv], cwd=cwd, capture_output=True, text=True,
                           timeout=TIMEOUT_S, stdin=subprocess.DEVNULL, env=env, errors="replace",
                           preexec_fn=_limit_memory)
    except subprocess.TimeoutExpired as exc:
        err = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else (exc.stderr or "")
        return -9, "", f"(no end within {TIMEOUT_S:.0f}s) {err}"
    return p.returncode, p.stdout, p.stderr


def error_lines(stderr: str) -> list[str]:
    """stderr's non-blank lines (a usage block counts: a usage error is one line too)."""
    return [ln for ln in stderr.splitlines() if ln.strip()]


def verdict(case: Case, rc: int, stderr: str, changed: bool, judged: str | None = None) -> str:
    """'ok', or what broke the rule; ``judged``: the case's own verdict (``Case.judge``) instead of exit 2."""
    lines = error_lines(stderr)
    if "Traceback" in stderr:
        return "traceback"
    if "internal error" in stderr:
        return "internal error"
    if rc == -9:
        return "hang"
    if judged is not None:
        return judged
    if rc != 2:
        return f"exit {rc}"
    if len(lines) != 1:
        return f"{len(lines)} lines"
    if case.expect is not None and case.expect not in lines[0]:
        return f"does not name {case.expect!r}"
    if changed:
        return "stored trials changed"
    return "ok"


def run_case(case: Case, seed: Path) -> tuple[int, str, str]:
    """Run one case in a fresh folder (a copy of the tuned study in ``seed`` when the case uses it)."""
    with tempfile.TemporaryDirectory(prefix="hostile-") as tmp:
        work = Path(tmp)
        if case.seeded:
            shutil.copytree(seed, work, dirs_exist_ok=True)
        env = Env(work, lambda argv: run_autotune(argv, work))
        argv = case.argv(env)
        before = study_digest(env.db) if case.seeded else None
        rc, out, err = run_autotune(argv, work)
        changed = case.seeded and study_digest(env.db) != before
        first = next(iter(error_lines(err)), "") or next(iter(err.splitlines()), "")
        judged = case.judge(env, rc, out, err) if case.judge is not None else None
        return rc, first.replace(str(work), "DIR"), verdict(case, rc, err, changed, judged)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=RESULTS / "hostile_cli.txt")
    ap.add_argument("--only", default="", help="run the cases whose name contains this text")
    ap.add_argument("--code", type=Path, default=ROOT, help="the checkout whose autotune is probed (default: this one)")
    a = ap.parse_args(argv)
    CODE[0] = a.code.resolve()
    cases = [c for c in CASES if a.only in c.name]
    rows: list[str] = []
    broken = 0
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="hostile-seed-") as tmp:
        seed = Path(tmp)
        Env.tune_seed(seed, lambda av: run_autotune(av, seed))
        for case in cases:
            rc, first, why = run_case(case, seed)
            broken += why != "ok"
            first = " ".join(first.split())
            row = f"{case.name:<44} {rc:>3}  {why if why != 'ok' else 'ok':<4}  {first[:150]}"
            rows.append(row)
            print(row, flush=True)
    summary = (f"{len(cases)} cases, {broken} breaking the rule (one stderr line, exit 2, no traceback), "
               f"{time.monotonic() - start:.0f}s")
    print(summary)
    if not a.only:
        a.out.parent.mkdir(parents=True, exist_ok=True)
        code = f" --code {CODE[0]}" if CODE[0] != ROOT else ""
        header = (f"# python -m experiments.evaluation.hostile_cli{code} (DIR: the case's folder)\n"
                  f"{'case':<44} {'rc':>3}  {'':<4}  first stderr line\n")
        a.out.write_text(header + "\n".join(rows) + "\n" + summary + "\n")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())

"""Probe: Darshan logs from anywhere never end in a traceback, an internal error or a hang.

Runs ``autotune init --from-darshan CASE -o c.yaml`` (a fresh process per case, as a user would) and the
``darshan`` extractor (``extractor: darshan`` reading CASE, the campaign-side entry point) over every log it
finds (``darshan_variants.shipped_logs``) and hostile variants of each: truncations at many offsets, bytes
flipped in the header and in the compressed regions, wrong magic, a partial flag, gzip/bzip2/xz copies, and
inputs that are no log at all (empty, a directory, a FIFO, text, random bytes, a Darshan 2 log). The rules:

- ``init``: exit 0 with a campaign (stderr: nothing, or one notice line naming the file) or exit 2 with one
  stderr line naming the file; never a traceback or "internal error"; within ``--limit`` seconds. Cases
  with an expectation (a gzip copy reads like the log, a cut log is an error, ...) must meet it.
- a campaign's command names no file the job wrote (its output moved under ``{data_dir}``), and its data
  directory (``target.path``) is no file system's mount point (``writes_outside``).
- extractor: one line (a value or the reason), exit 0, within ``--limit`` seconds.

Prints one row per case and entry point (case, exit code, first stderr line, seconds) and exits 1 on any rule
break. Run: PYTHONPATH=$PWD .venv/bin/python -m experiments.evaluation.darshan_probe [--out FILE] [LOG|DIR ...]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import yaml

from experiments.evaluation.darshan_variants import Case, log_cases, other_cases, shipped_logs

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "experiments" / "evaluation" / "results"
EXTRACT = ("import sys\nfrom autotune._result import RunResult\nfrom autotune.measure import get_extractor\n"
           "res = RunResult(0, wall_seconds=1.0)\nres.info['run_dir'] = '.'\n"
           "m = get_extractor('darshan', {'logs': sys.argv[1]}).extract(res, 'bandwidth_mib_s')\n"
           "print(m.error or f'bandwidth_mib_s={m.value:.4g}', file=sys.stderr)\n")


@dataclass
class Row:
    case: Case
    entry: str
    rc: int | None
    err: str
    seconds: float
    broken: str = ""
    campaign: str = ""   # init's campaign text (exit 0)

    @property
    def first(self) -> str:
        lines = [ln for ln in self.err.splitlines() if ln.strip()]
        return lines[0] if lines else ""


def _run(argv: list[str], where: Path, limit: float) -> tuple[int | None, str, float]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("AUTOTUNE_DEBUG", None)
    start = time.monotonic()
    try:
        done = subprocess.run(argv, cwd=where, env=env, capture_output=True, text=True, errors="replace", timeout=limit,
                              stdin=subprocess.DEVNULL)
        return done.returncode, done.stderr, time.monotonic() - start
    except subprocess.TimeoutExpired as exc:
        err = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else (exc.stderr or "")
        return None, err, time.monotonic() - start


def probe(case: Case, work: Path, limit: float) -> list[Row]:
    """Both entry points on one case, each in its own folder; the rule breaks filled in (``decide``)."""
    rows = []
    for entry in ("init", "extractor"):
        where = work / entry
        where.mkdir(parents=True)
        target = where / case.filename
        case.make(target)
        argv = ([sys.executable, "-m", "autotune.cli", "init", "--from-darshan", str(target), "-o", "c.yaml"]
                if entry == "init" else [sys.executable, "-c", EXTRACT, str(target)])
        rc, err, secs = _run(argv, where, limit)
        written = where / "c.yaml"
        rows.append(Row(case, entry, rc, err.replace(str(where) + "/", ""), secs,
                        campaign=written.read_text() if entry == "init" and rc == 0 and written.exists() else ""))
    return rows


def writes_outside(text: str) -> str:
    """What of a campaign would write outside its data directory: a command argument naming a file the job
    wrote (the header's file lines), a data directory at a mount point of the job's files ('' when none)."""
    data = yaml.safe_load(text)
    files = [ln[4:] for ln in text.splitlines() if ln.startswith("#   /") and " written, " in ln]
    written = {f.split(": ")[0] for f in files if not f.split(": ", 1)[1].startswith("0 B written")}
    mounts = {f.split(" (as ")[0].split()[-1].rstrip("/") or "/" for f in files}
    command = data.get("app", {}).get("command") or []
    if any(arg in written for arg in command[1:]):
        return "the command names a file the job wrote"
    target = data.get("target")
    path = str(target.get("path") or "") if isinstance(target, dict) else ""
    if path and (path.rstrip("/") or "/") in mounts | {"/"}:
        return f"the data directory {path} is a file system's mount point"
    return ""


def decide(row: Row, undamaged_rc: int | None, limit: float) -> str:
    """What rule the row breaks ('' when none)."""
    lines = [ln for ln in row.err.splitlines() if ln.strip()]
    if row.rc is None:
        return f"hang: no exit within {limit:.0f} s"
    if "Traceback" in row.err or "internal error" in row.err:
        return "traceback / internal error"
    if row.rc < 0:
        return f"killed by signal {-row.rc}"
    if row.entry == "extractor":
        return "" if row.rc == 0 and len(lines) == 1 else f"extractor: exit {row.rc}, {len(lines)} stderr lines"
    if row.rc not in (0, 2):
        return f"exit {row.rc} (0 or 2 expected)"
    if len(lines) > 1:
        return f"{len(lines)} stderr lines (one expected)"
    if row.rc == 2 and (not lines or row.case.filename not in lines[0]):
        return "the error does not name the file"
    want_rc = {"campaign": 0, "error": 2, "same": undamaged_rc}.get(row.case.expect)
    if want_rc is not None and row.rc != want_rc:
        return f"exit {row.rc}, expected {want_rc} ({row.case.expect})"
    if row.case.want and (row.rc == 0 or row.case.expect == "error") and row.case.want not in row.first:
        return f"the first stderr line does not say {row.case.want!r}"
    if row.rc == 0 and lines and row.case.filename not in lines[0]:
        return "a notice that does not name the file"
    return writes_outside(row.campaign) if row.campaign else ""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("logs", nargs="*", type=Path, help="more Darshan logs or folders of them")
    ap.add_argument("--truncations", type=int, default=6, help="evenly spaced cuts per log (besides the header's)")
    ap.add_argument("--flips", type=int, default=9, help="flipped bytes in the compressed regions per log")
    ap.add_argument("--limit", type=float, default=120.0, help="seconds a case may take before it counts as a hang")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", default="", help="only the cases whose name holds this text")
    ap.add_argument("--out", type=Path, default=RESULTS / "darshan_probe.txt")
    args = ap.parse_args(argv)
    logs, sources = shipped_logs(args.logs)
    if not logs:
        print("darshan_probe: no Darshan log found", file=sys.stderr)
        return 2
    cases = other_cases(logs[0].read_bytes())
    for i, log in enumerate(logs):
        cases += log_cases(f"L{i:02d}", log, args.truncations, args.flips)
    cases = [c for c in cases if args.only in c.name]
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(args.jobs) as pool:
        started = time.monotonic()
        results = list(pool.map(lambda ic: probe(ic[1], Path(tmp) / str(ic[0]), args.limit), enumerate(cases)))
        total = time.monotonic() - started
    rows = [r for rs in results for r in rs]
    undamaged = {r.case.name: r.rc for r in rows if r.entry == "init" and r.case.origin}
    for r in rows:
        r.broken = decide(r, undamaged.get(r.case.name.split(" ")[0]), args.limit)
    for init, extractor in results:   # a campaign from a log libdarshan-util could not read all of needs a notice
        if not init.broken and init.rc == 0 and not init.first and "could not read all of it" in extractor.first:
            init.broken = "a campaign from a log libdarshan-util could not read all of, without a notice"
    broken = [r for r in rows if r.broken]
    text = [f"# python -m experiments.evaluation.darshan_probe --truncations {args.truncations} --flips {args.flips}"
            f" ({len(cases)} cases, 2 entry points, {total:.0f} s wall with {args.jobs} jobs)"]
    text += [f"# logs: {s}" for s in sources]
    text += [f"# L{i:02d} = {log.parent.name}/{log.name}" for i, log in enumerate(logs)]
    text.append(f"{'case':40} {'entry':9} {'rc':>4} {'s':>5}  first stderr line")
    for r in rows:
        mark = f"  <-- {r.broken}" if r.broken else ""
        text.append(f"{r.case.name[:40]:40} {r.entry:9} {r.rc if r.rc is not None else '-':>4} {r.seconds:5.1f}  "
                    f"{r.first[:150]}{mark}")
    init_rows = [r for r in rows if r.entry == "init"]
    text.append(f"# init: {sum(r.rc == 0 for r in init_rows)} campaigns, {sum(r.rc == 2 for r in init_rows)} one-line "
                f"errors; slowest case {max(r.seconds for r in rows):.1f} s; rule breaks: {len(broken)}")
    text += [f"# BROKEN {r.case.name} ({r.entry}): {r.broken}" for r in broken]
    print("\n".join(text))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("\n".join(text) + "\n")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())

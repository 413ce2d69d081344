"""``autotune site detect`` (what this host runs: MPI and its io component, file system, cores, tools) and
``autotune site profile -o FILE`` (a system profile for this machine from detection and a short probe)."""

from __future__ import annotations

import argparse
import datetime
import json
import os
import socket
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from autotune._yaml import parse_yaml, plain_text
from autotune.cli._parsers import MAX_BUDGET_S
from autotune.errors import ConfigError
from autotune.systems import ProbeSetup, detect_stack, parse_system, profile_site


def _setup(args: argparse.Namespace) -> Any:
    return ProbeSetup(mpiexec=args.mpiexec, mpiexec_args=tuple(args.mpiexec_arg), python=args.python)


def _folder(text: str, what: str) -> Path:
    path = Path(text).expanduser()
    if not path.is_dir():
        raise ConfigError(f"{what}: {text!r} is not an existing folder")
    return path.resolve()


def detection_lines(found: Any) -> list[str]:
    """``site detect``'s lines: one fact each, with its mark and source."""
    lines = [f"cores         {found.cores.value}  ({found.cores.mark}: {found.cores.source})"]
    fs = found.filesystem
    if fs is None:
        lines.append("file system   unknown  (neither /proc/self/mountinfo nor statfs answered)")
    else:
        scope = "shared" if fs.network else "node-local"
        lines.append(f"file system   {fs.fstype} at {fs.mount_point or '?'}: profile kind {fs.kind}, {scope}  "
                     f"(detected: {fs.source}; {fs.path})")
    mpi = found.mpi
    if mpi is None:
        lines.append("MPI           not asked (--no-mpi)")
    elif mpi.error:
        lines.append(f"MPI           unknown  ({mpi.error})")
    else:
        flavour = mpi.flavour or "unknown"
        lines.append(f"MPI           {mpi.library.describe()}: profile flavour {flavour}  "
                     f"(detected: MPI_Get_library_version through {mpi.mpiexec})")
        lines.append(f"MPI-IO        {mpi.io_component or 'unknown'}  (detected: {mpi.io_reason})")
    have = [n for n, p in found.tools.items() if p]
    lacking = [n for n, p in found.tools.items() if not p]
    lines.append(f"tools         {' '.join(have) or 'none'}" + (f"  (absent: {' '.join(lacking)})" if lacking else ""))
    return lines


def cmd_detect(args: argparse.Namespace, argv: Sequence[str] = ()) -> int:
    setup = _setup(args)
    found = detect_stack(_folder(args.path, "--path"), mpi=not args.no_mpi, mpiexec=setup.mpiexec,
                         python=setup.python, mpiexec_args=setup.mpiexec_args)
    if args.json:
        data = asdict(found)
        if found.mpi is not None:
            data["mpi"]["flavour"] = found.mpi.flavour
        print(json.dumps(data, sort_keys=True, default=str))
    else:
        print("\n".join(detection_lines(found)))
    return 0


def _budget(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 5.0 <= value <= MAX_BUDGET_S:
        raise ConfigError(f"--budget: {text!r} is not a number of seconds between 5 and {MAX_BUDGET_S:g}")
    return value


def cmd_profile(args: argparse.Namespace, argv: Sequence[str] = ()) -> int:
    out = Path(args.output).expanduser()
    if out.exists() and not args.force:
        raise ConfigError(f"-o: {args.output!r} exists (--force overwrites it)")
    if not out.parent.is_dir():
        raise ConfigError(f"-o: {str(out.parent)!r} is not an existing folder")
    name = plain_text(args.name if args.name is not None else out.stem, "--name", "one line")
    if not name.strip():
        raise ConfigError("--name: the system's name must not be empty")
    folders = [_folder(p, "--path") for p in (args.path or ["."])]
    budget = _budget(args.budget)
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    header = [f"written by `autotune site profile` on {socket.gethostname()} at {now}",
              "run it where the jobs run (a compute node, inside an allocation) for that node's cores and MPI"]
    busy = os.getloadavg()[0]
    text, found = profile_site(name, folders, _setup(args), budget=budget, mpi=not args.no_mpi, header=header,
                               say=lambda line: print(line, flush=True))
    busy = max(busy, os.getloadavg()[0])
    if busy > int(found.cores.value):
        print(f"autotune: warning: the node was busy during the probe (load average {busy:.3g} on "
              f"{found.cores.value} cores): its figures are the least disturbed repetitions, still a busy node's; "
              "probe again on an idle node for the site's own", file=sys.stderr)
    parse_system(parse_yaml(text, str(out)), str(out))  # what is written reads back as a profile
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
    print("\n".join(detection_lines(found)))
    marks = {m: sum(f"# {m}:" in line for line in text.splitlines()) for m in ("measured", "detected", "assumed")}
    print(f"wrote {out}: {marks['measured']} measured, {marks['detected']} detected, {marks['assumed']} assumed "
          f"value(s); use it as `system: {out}` in a campaign")
    return 0

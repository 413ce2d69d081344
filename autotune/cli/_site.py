"""``autotune site detect`` (what this host runs: MPI and its io component, file system, cores, tools) and
``autotune site profile -o FILE`` (a system profile for this machine from detection and a short probe)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from autotune._yaml import plain_text
from autotune.cli._parsers import MAX_BUDGET_S
from autotune.errors import ConfigError
from autotune.systems import ProbeSetup, detect_stack, detection_lines, write_profile


def _setup(args: argparse.Namespace) -> Any:
    return ProbeSetup(mpiexec=args.mpiexec, mpiexec_args=tuple(args.mpiexec_arg), python=args.python)


def _folder(text: str, what: str) -> Path:
    path = Path(text).expanduser()
    if not path.is_dir():
        raise ConfigError(f"{what}: {text!r} is not an existing folder")
    return path.resolve()


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
    lines = write_profile(out, name, folders, _setup(args), budget=budget, mpi=not args.no_mpi,
                          say=lambda line: print(line, flush=True),
                          warn=lambda line: print(f"autotune: warning: {line}", file=sys.stderr))
    print("\n".join(lines))
    return 0

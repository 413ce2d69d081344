"""``autotune ask``, ``tell`` and ``hints``: the search as a service for production job scripts."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from autotune.campaign import Runtime, make_storage
from autotune.cli._common import load, warn_stack
from autotune.cli._errors import hints_defaults
from autotune.errors import AutotuneError
from autotune.hints import flavour_problem, render
from autotune.service import Policy, StoreUnavailable, app_hints, bounded, do_ask, do_hints, do_tell, job_report, parse_ref
from autotune.units import parse_duration


def _seconds(text: str, what: str) -> float:
    return float(parse_duration(text, what))


STORAGE_ENV = "AUTOTUNE_STORAGE"


def store_args(args: argparse.Namespace) -> argparse.Namespace:
    """``ask``, ``tell`` and ``hints`` find the store in one order: ``--storage``, then ``$AUTOTUNE_STORAGE``, then
    the campaign's ``storage:`` (else its work directory's SQLite file)."""
    if getattr(args, "storage", None) is None and os.environ.get(STORAGE_ENV, "").strip():
        args.storage, args.storage_from = os.environ[STORAGE_ENV].strip(), f"${STORAGE_ENV}"
    return args


def _say_private(c: Any) -> None:
    """One stderr line when the study lives in the work directory's own SQLite file: jobs whose work directory
    differs (a relative ``workdir`` is relative to the directory the job starts in) never share what it learns."""
    if c.storage_url is not None:
        return
    here = c.workdir.is_relative_to(Path.cwd().resolve())
    whose = "this directory" if here else f"jobs using the work directory {c.workdir}"
    print(f"autotune ask: no shared store (--storage URL or ${STORAGE_ENV}): the study ({c.storage}) is private to "
          f"{whose}; jobs started elsewhere do not share it", file=sys.stderr)


def cmd_ask(args: argparse.Namespace, argv: Sequence[str] = ()) -> int:
    # the arguments first: a bad one is the only line printed, before any notice about the store
    policy = Policy(explore=args.explore, max_slowdown=args.max_slowdown)
    expire, timeout = _seconds(args.expire, "--expire"), _seconds(args.timeout, "--timeout")
    c = load(store_args(args))
    _say_private(c)
    rt = Runtime.build(c)
    warn_stack(rt, timeout=10.0)  # a production job's ask: a short bound on asking the MPI
    job = args.job_id if args.job_id is not None else os.environ.get("SLURM_JOB_ID", "")
    a = do_ask(rt, policy, job_id=job, expire_s=expire, timeout=timeout, seed=args.seed)
    settings = rt.settings_for(a.config, a.is_default)
    if args.format == "json":
        print(json.dumps({"trial": a.ref, "source": a.source, "asked_at": a.asked_at, "config": a.config,
                          "hints": json.loads(render("json", settings))}, sort_keys=True, default=str))
    else:
        print(f"export AUTOTUNE_TRIAL={shlex.quote(a.ref)}")
        print(f"export AUTOTUNE_ASK_TIME={a.asked_at:.3f}")
        print(f"export AUTOTUNE_CONFIG_SOURCE={shlex.quote(a.source)}")
        print(render("env", settings, mpi_flavour=c.system.mpi_flavour, patterns=list(c.app.hint_files), path=args.path))
    sys.stdout.flush()
    return 0


def cmd_tell(args: argparse.Namespace, argv: Sequence[str] = ()) -> int:
    ref = args.trial if args.trial is not None else os.environ.get("AUTOTUNE_TRIAL", "")
    c = load(store_args(args))
    if ref:  # empty: the job ran a fallback configuration (below)
        parse_ref(ref, "--trial" if args.trial is not None else "AUTOTUNE_TRIAL")
    if not ref:
        print("autotune tell: no AUTOTUNE_TRIAL (the job ran a fallback configuration): nothing to tell", file=sys.stderr)
        return 0
    rt = Runtime.build(c)
    job = job_report(rt, value=args.value, walltime=args.walltime, output=args.output, exit_status=args.exit_status)
    if job.warning is not None:
        print(f"autotune tell: warning: {job.warning}", file=sys.stderr)
    print(do_tell(rt, ref, value=job.value, failure=job.failure, extra=job.extra,
                  timeout=_seconds(args.timeout, "--timeout")))
    sys.stdout.flush()
    return 0


def cmd_hints(args: argparse.Namespace, argv: Sequence[str] = ()) -> int:
    """Prints valid hints or the defaults, and exits 0 whatever happens: a job script never breaks on it."""
    try:
        return _hints(args)
    except Exception as exc:  # noqa: BLE001 - a malformed record or any surprise: the defaults, never an exit code
        return hints_defaults(f"cannot use what the store holds ({type(exc).__name__}: {exc})")


def _hints(args: argparse.Namespace) -> int:
    if not _is_campaign_file(args.campaign):
        return _app_hints(args)
    try:
        c = load(store_args(args))
        problem = flavour_problem(args.format, c.system.mpi_flavour, c.system.name)
        if problem:
            return hints_defaults(f"--format {args.format}: {problem}")
        rt = Runtime.build(c)
        known = do_hints(rt, _seconds(args.timeout, "--timeout"))
    except (AutotuneError, StoreUnavailable) as exc:
        return hints_defaults(str(exc))
    if known is None:
        return hints_defaults(f"nothing recorded for {c.app.name!r} on {c.system.name}")
    settings = rt.settings_for(known.config(rt), False)
    print(f"autotune hints: {known.describe()}", file=sys.stderr)
    print(render(args.format, settings, mpi_flavour=c.system.mpi_flavour, patterns=list(c.app.hint_files), path=args.path))
    return 0


def _is_campaign_file(name: str) -> bool:
    return name.endswith((".yaml", ".yml")) or Path(name).is_file()


def _app_hints(args: argparse.Namespace) -> int:
    """``hints APP``: the app's recorded studies in ``--storage``; the defaults whatever goes wrong."""

    storage = store_args(args).storage
    if not storage:
        return hints_defaults(f"{args.campaign!r} is not a campaign file; an app name needs --storage (or ${STORAGE_ENV})")
    try:
        found = bounded(lambda: app_hints(make_storage(storage, fast=True), args.campaign, args.system),
                        _seconds(args.timeout, "--timeout"))
    except (AutotuneError, StoreUnavailable) as exc:
        return hints_defaults(str(exc))
    if found is None:
        where = f" on {args.system}" if args.system else ""
        return hints_defaults(f"nothing recorded for app {args.campaign!r}{where}")
    problem = flavour_problem(args.format, found.mpi_flavour, found.system)
    if problem:
        return hints_defaults(f"--format {args.format}: {problem}")
    print(f"autotune hints: {found.known.describe()}", file=sys.stderr)
    if found.others:
        print(f"autotune hints: {args.campaign!r} also has studies on {', '.join(found.others)} (--system to choose)",
              file=sys.stderr)
    print(render(args.format, found.settings, mpi_flavour=found.mpi_flavour, path=args.path))
    return 0

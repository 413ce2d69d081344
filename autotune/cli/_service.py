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

from autotune.cli._common import DialectChoices, add_overrides, dialect_help, lfs_path, load, warn_stack
from autotune.cli._store import register_store
from autotune.errors import AutotuneError
from autotune.units import parse_duration


def register(sub: Any) -> None:
    register_jobs(sub)
    register_store(sub)


def register_jobs(sub: Any) -> None:
    a = sub.add_parser("ask", help="the configuration a production job runs (eval \"$(autotune ask ...)\")")
    a.add_argument("campaign")
    add_overrides(a)
    a.add_argument("--format", choices=("env", "json"), default="env")
    a.add_argument("--explore", type=float, default=0.2, help="fraction of jobs that try a new configuration (0.2)")
    a.add_argument("--max-slowdown", type=float, default=0.25,
                   help="an exploratory configuration may be predicted at most this much slower than the best (0.25)")
    a.add_argument("--expire", default="24h", help="a trial whose job never tells fails after this long (24h)")
    a.add_argument("--timeout", default="10s", help="wait at most this long for the store, then fall back (10s)")
    a.add_argument("--job-id", default=None, help="recorded on the trial (default: $SLURM_JOB_ID)")
    a.add_argument("--path", default="$OUTPUT_DIR", type=lfs_path, help="directory for lfs setstripe")
    a.add_argument("--seed", type=int, default=None, help="seed of the explore/exploit draw (tests)")
    a.set_defaults(run=cmd_ask)
    t = sub.add_parser("tell", help="record what a production job measured on the trial `ask` gave it")
    t.add_argument("campaign")
    add_overrides(t)
    t.add_argument("--trial", default=None, help="STUDY:NUMBER:TOKEN (default: $AUTOTUNE_TRIAL)")
    how = t.add_mutually_exclusive_group()
    how.add_argument("--value", type=_finite, help="the metric's value, in the objective's unit")
    how.add_argument("--walltime", action="store_true", help="seconds since `ask` (time objectives only)")
    how.add_argument("--output", metavar="FILE", help="the job's output: the campaign's own metric extractor reads it")
    t.add_argument("--exit-status", type=int, default=0, help="the job's exit status: non-zero is a failed trial")
    t.add_argument("--timeout", default="30s", help="wait at most this long for the store, then spool (30s)")
    t.set_defaults(run=cmd_tell)
    h = sub.add_parser("hints", help="the best known hints for an app on a system (never fails)")
    h.add_argument("campaign", metavar="CAMPAIGN|APP",
                   help="a campaign file, or an application's name (with --storage: its recorded studies)")
    add_overrides(h)
    h.add_argument("--system", help="with an app name: the system whose studies count (default: the most recent)")
    h.add_argument("--format", choices=DialectChoices(), default="env", metavar="FORMAT", help=dialect_help())
    h.add_argument("--path", default="$OUTPUT_DIR", type=lfs_path, help="directory for lfs setstripe")
    h.add_argument("--timeout", default="10s")
    h.set_defaults(run=cmd_hints)


def _finite(text: str) -> float:
    """``tell --value`` (argparse type): a finite number, named as given (``1e999`` is not read as inf)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if value != value or abs(value) == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number (a job that measured nothing "
                                         "tells --exit-status 1)")
    return value


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
    from autotune.campaign import Runtime  # lazy: Optuna stack, fast --help
    from autotune.hints import render  # lazy: Optuna stack, fast --help
    from autotune.service import Policy, do_ask  # lazy: Optuna stack, fast --help

    c = load(store_args(args))
    _say_private(c)
    rt = Runtime.build(c)
    warn_stack(rt, timeout=10.0)  # a production job's ask: a short bound on asking the MPI
    policy = Policy(explore=args.explore, max_slowdown=args.max_slowdown)
    job = args.job_id if args.job_id is not None else os.environ.get("SLURM_JOB_ID", "")
    a = do_ask(rt, policy, job_id=job, expire_s=_seconds(args.expire, "--expire"),
               timeout=_seconds(args.timeout, "--timeout"), seed=args.seed)
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
    from autotune.campaign import Runtime  # lazy: Optuna stack, fast --help
    from autotune.service import do_tell, job_report, parse_ref  # lazy: Optuna stack, fast --help

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


DEFAULTS = "# defaults: nothing to set"  # what `hints` prints when it cannot answer: a comment, safe to eval


def hints_defaults(why: str) -> int:
    """``hints`` could not answer: the reason on stderr (one line), the defaults on stdout, exit 0."""
    line = " ".join(why.split())
    print(f"autotune hints: {line if len(line) <= 300 else line[:297] + '...'}: keeping the defaults", file=sys.stderr)
    print(DEFAULTS)
    return 0


def cmd_hints(args: argparse.Namespace, argv: Sequence[str] = ()) -> int:
    """Prints valid hints or the defaults, and exits 0 whatever happens: a job script never breaks on it."""
    try:
        return _hints(args)
    except Exception as exc:  # noqa: BLE001 - a malformed record or any surprise: the defaults, never an exit code
        return hints_defaults(f"cannot use what the store holds ({type(exc).__name__}: {exc})")


def _hints(args: argparse.Namespace) -> int:
    from autotune.campaign import Runtime  # lazy: Optuna stack, fast --help
    from autotune.hints import flavour_problem, render  # lazy: Optuna stack, fast --help
    from autotune.service import StoreUnavailable, do_hints  # lazy: Optuna stack, fast --help

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
    from autotune.campaign import make_storage  # lazy: Optuna stack, fast --help
    from autotune.hints import flavour_problem, render  # lazy: Optuna stack, fast --help
    from autotune.service import StoreUnavailable, app_hints, bounded  # lazy: Optuna stack, fast --help

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

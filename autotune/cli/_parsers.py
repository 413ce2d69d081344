"""The subcommands' arguments. Each parser names its handler as ``"module:function"`` (``run``), which
``_main`` imports only when that command runs; a command that needs an optional extra names it too (``needs``),
checked before its handler loads. Nothing here imports the campaign machinery: ``autotune --help`` and a job's
``ask`` parse without Optuna or NumPy (tests/service/test_fast_imports.py)."""

from __future__ import annotations

import argparse
from typing import Any

from autotune.cli._options import (
    DEFAULT_PORT,
    DialectChoices,
    add_mpi_options,
    add_overrides,
    add_tune_overrides,
    dialect_help,
    finite,
    lfs_path,
)

TABLE_ROWS = 200  # a production study grows by thousands of trials a month: `status` lists the recent ones
MAX_BUDGET_S = 600.0  # `site profile --budget`: the longest probe, in seconds
PLOTS = ("matplotlib", "report", "autotune compare/report (plots)")  # the extra `compare` and `report` need


def _runs(p: argparse.ArgumentParser, handler: str, needs: tuple[str, str, str] | None = None) -> None:
    """``handler``: ``"_module:function"`` in this package; ``needs``: ``(module, extra, feature)`` of ``require``."""
    p.set_defaults(run=f"autotune.cli.{handler}", needs=needs)


def register_init(sub: Any) -> None:
    p = sub.add_parser("init", help="write a campaign file from a Darshan log (and diagnose the job)")
    p.add_argument("--from-darshan", dest="log", required=True, metavar="LOG", help="the job's .darshan log")
    p.add_argument("--system", default=None, help="system profile (name or path); default: the one whose file "
                   "system holds the job's main file")
    p.add_argument("--nodes", type=int, default=None, help="nodes the job ran on (Darshan does not record them)")
    p.add_argument("--target", default=None, choices=["model"], help="'model': run the campaign on the performance model")
    p.add_argument("--name", default=None, help="campaign name (default: from the executable and job id)")
    p.add_argument("--trials", type=int, default=30, help="budget.trials of the campaign (default 30)")
    p.add_argument("-o", "--output", default=None, help="campaign file to write (default: print it)")
    p.add_argument("--force", action="store_true", help="overwrite an existing output file")
    p.add_argument("--app-command", nargs=argparse.REMAINDER, default=None,
                   help="the command to tune (the rest of the line; default: the executable the log records)")
    _runs(p, "_init:cmd_init")


def register_tune(sub: Any) -> None:
    t = sub.add_parser("tune", help="run or resume a tuning campaign")
    t.add_argument("campaign", help="campaign YAML file")
    add_tune_overrides(t)
    t.add_argument("--dry-run", action="store_true", help="print what each trial would run, run nothing")
    t.add_argument("--notify", metavar="CMD", help="command run at the end with the summary on stdin (no shell)")
    _runs(t, "_tune:cmd_tune")


def register_check(sub: Any) -> None:
    c = sub.add_parser("check", help="run the default configuration once: command, environment, hints file, "
                                     "output, metric with unit and direction, hints in effect")
    c.add_argument("campaign", help="campaign YAML file")
    add_overrides(c)
    c.add_argument("--config", action="append", default=[], metavar="NAME=VALUE",
                   help="run this configuration instead of the default (repeatable, e.g. mpiio.cb_nodes=2)")
    _runs(c, "_check:cmd_check")


def register_inspect(sub: Any) -> None:
    s = sub.add_parser("status", help="trials, best so far, time spent")
    s.add_argument("campaign")
    add_overrides(s)
    s.add_argument("--trials-table", action="store_true", help=f"list the last {TABLE_ROWS} trials")
    s.add_argument("--all-trials", action="store_true", help="with --trials-table: list every trial")
    _runs(s, "_inspect:cmd_status")
    e = sub.add_parser("export", help="print the best configuration as hints")
    e.add_argument("campaign")
    add_overrides(e)
    e.add_argument("--format", default="env", help=dialect_help())
    e.add_argument("--files", default=None, help="file patterns for MPICH_MPIIO_HINTS, comma-separated (default: the app's)")
    e.add_argument("--path", default="$OUTPUT_DIR", type=lfs_path, help="directory for lfs setstripe")
    _runs(e, "_inspect:cmd_export")
    sp = sub.add_parser("space", help="show the search space a campaign searches on its target")
    sp.add_argument("campaign")
    _runs(sp, "_inspect:cmd_space")


def register_compare(sub: Any) -> None:
    cmp_ = sub.add_parser("compare", help="run or resume campaigns on several targets, then write a report")
    add_tune_overrides(cmp_)
    _compare_arguments(cmp_, running=True)
    _runs(cmp_, "_compare:cmd_compare", needs=PLOTS)
    rep = sub.add_parser("report", help="regenerate a comparison report from the storages (runs nothing)")
    add_overrides(rep)
    _compare_arguments(rep, running=False)
    _runs(rep, "_compare:cmd_compare", needs=PLOTS)


def _compare_arguments(p: argparse.ArgumentParser, *, running: bool) -> None:
    """Arguments of compare (``running``) and report besides the shared overrides."""
    p.add_argument("campaigns", nargs="+", metavar="CAMPAIGN", help="campaign YAML files (same app, different targets)")
    p.add_argument("--report", required=True, metavar="DIR", help="directory for report.html, report.md, report.json")
    if running:
        p.add_argument("--no-run", action="store_true", help="run nothing: regenerate the report from the storages")
    else:
        p.add_argument("--tracking-uri", help="MLflow URI for the comparison run (default: the first campaign's)")
        p.add_argument("--no-tracking", action="store_true", help="do not log the comparison to MLflow")
    p.add_argument("--notify", metavar="CMD", help="command run at the end with the summary on stdin (no shell)")


def register_model(sub: Any) -> None:
    m = sub.add_parser("model", help="the performance model")
    msub = m.add_subparsers(dest="model_cmd", required=True)
    c = msub.add_parser("calibrate", help="compare the model with the cited sources' published figures")
    c.add_argument("--cross-validate", action="store_true",
                   help="leave one seed system out, fit the shared constants on the others, predict it")
    c.add_argument("--out-of-sample", action="store_true",
                   help="published figures beyond the cited sources, predicted without fitting (docs/model.md)")
    _runs(c, "_model:cmd_calibrate")
    f = msub.add_parser("fit", help="fit the profile's model constants to the campaigns' measured trials")
    f.add_argument("campaigns", nargs="+", help="campaign YAML file(s) whose studies hold real measurements")
    f.add_argument("-o", "--output", help="write the calibrated profile here (YAML)")
    f.add_argument("--constants", help="comma-separated constants to fit (default: by the target's kind)")
    f.add_argument("--storage", help="Optuna storage URL (default: each campaign's)")
    _runs(f, "_modelfit:cmd_fit")
    a = msub.add_parser("advise", help="fit the campaigns' trials at their scale, advise settings at --nodes N")
    a.add_argument("campaigns", nargs="+", help="campaign YAML file(s) whose studies hold real measurements")
    a.add_argument("--nodes", type=int, required=True, help="node count to advise for (same ranks per node)")
    a.add_argument("--constants", help="comma-separated constants to fit (default: by the target's kind)")
    a.add_argument("--storage", help="Optuna storage URL (default: each campaign's)")
    _runs(a, "_modelfit:cmd_advise")


def register_service(sub: Any) -> None:
    """``ask``, ``tell`` and ``hints`` (production job scripts), and ``store serve``."""
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
    _runs(a, "_service:cmd_ask")
    t = sub.add_parser("tell", help="record what a production job measured on the trial `ask` gave it")
    t.add_argument("campaign")
    add_overrides(t)
    t.add_argument("--trial", default=None, help="STUDY:NUMBER:TOKEN (default: $AUTOTUNE_TRIAL)")
    how = t.add_mutually_exclusive_group()
    how.add_argument("--value", type=finite, help="the metric's value, in the objective's unit")
    how.add_argument("--walltime", action="store_true", help="seconds since `ask` (time objectives only)")
    how.add_argument("--output", metavar="FILE", help="the job's output: the campaign's own metric extractor reads it")
    t.add_argument("--exit-status", type=int, default=0, help="the job's exit status: non-zero is a failed trial")
    t.add_argument("--timeout", default="30s", help="wait at most this long for the store, then spool (30s)")
    _runs(t, "_service:cmd_tell")
    h = sub.add_parser("hints", help="the best known hints for an app on a system (never fails)")
    h.add_argument("campaign", metavar="CAMPAIGN|APP",
                   help="a campaign file, or an application's name (with --storage: its recorded studies)")
    add_overrides(h)
    h.add_argument("--system", help="with an app name: the system whose studies count (default: the most recent)")
    h.add_argument("--format", choices=DialectChoices(), default="env", metavar="FORMAT", help=dialect_help())
    h.add_argument("--path", default="$OUTPUT_DIR", type=lfs_path, help="directory for lfs setstripe")
    h.add_argument("--timeout", default="10s")
    _runs(h, "_service:cmd_hints")
    s = sub.add_parser("store", help="serve a storage to jobs through Optuna's gRPC proxy")
    ssub = s.add_subparsers(dest="store_cmd", required=True)
    srv = ssub.add_parser("serve", help="run Optuna's gRPC storage proxy in front of --storage (until stopped); "
                                        "by default on a Unix socket only you can reach")
    srv.add_argument("--storage", required=True, help="the database URL the proxy serves (postgresql://...)")
    srv.add_argument("--socket-dir", help="serve on a Unix socket in this existing directory of yours (its mode "
                                          "and group decide who connects; default: a private 0700 directory)")
    srv.add_argument("--host", help="listen on TCP at this address instead (anyone reaching it can use the store)")
    srv.add_argument("--port", type=int, help=f"TCP port (default {DEFAULT_PORT}; implies TCP)")
    _runs(srv, "_store:cmd_store_serve")


def register_submit(sub: Any) -> None:
    s = sub.add_parser("submit", help="run a campaign on a Ray cluster through Ray Jobs (or --status/--logs/--stop ID)")
    s.add_argument("campaign", nargs="?", help="campaign YAML file (its directory is shipped as the working dir)")
    s.add_argument("--address", required=True, help="the Ray dashboard, e.g. http://127.0.0.1:8265")
    s.add_argument("--python", default="python", help="the cluster's Python with autotune installed (default: python)")
    s.add_argument("--wait", action="store_true", help="wait for the job to end, then print its logs")
    act = s.add_mutually_exclusive_group()
    act.add_argument("--status", metavar="ID", help="the job's status")
    act.add_argument("--logs", metavar="ID", help="the job's output so far")
    act.add_argument("--stop", metavar="ID", help="stop the job (the campaign stops between trials, resumable)")
    s.add_argument("--tune-args", default="", metavar="'OPTIONS'",
                   help="options for `autotune tune` on the cluster, e.g. --tune-args '--trials 40 --no-tracking'")
    _runs(s, "_submit:cmd_submit")


def register_site(sub: Any) -> None:
    s = sub.add_parser("site", help="detect this host's stack; write a system profile for it")
    ssub = s.add_subparsers(dest="site_cmd", required=True)
    d = ssub.add_parser("detect", help="the MPI library and io component, the file system of --path, cores, tools")
    d.add_argument("--path", default=".", help="the folder whose file system to detect (default: .)")
    d.add_argument("--json", action="store_true", help="print JSON instead of lines")
    add_mpi_options(d)
    _runs(d, "_site:cmd_detect")
    p = ssub.add_parser("profile", help="write a system profile for this machine: detection plus a short probe")
    p.add_argument("-o", "--output", required=True, help="the profile YAML to write")
    p.add_argument("--name", default=None, help="the system's name (default: the file's stem)")
    p.add_argument("--path", action="append", default=[], help="a folder on a file system to profile (repeatable; "
                   "default: .); the probe writes and removes a few 64 MiB files there")
    p.add_argument("--budget", default="60", help="seconds the probe may take in all (default: 60)")
    p.add_argument("--force", action="store_true", help="overwrite an existing output file")
    add_mpi_options(p)
    _runs(p, "_site:cmd_profile")


# In the order `autotune --help` lists them.
COMMANDS = (register_init, register_tune, register_check, register_inspect, register_compare, register_model,
            register_service, register_submit, register_site)

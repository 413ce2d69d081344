"""Argument definitions shared by the subcommands' parsers, and ``resolve``, which loads what a command declares
by name (its handler, the hints dialects) only when it is used. Light on purpose: building the parser for a job's
``ask`` or ``hints`` imports nothing of the campaign machinery (Optuna, NumPy)."""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Any

from autotune.execute import executor_names

DEFAULT_PORT = 13000  # the TCP port of ``store serve --host`` without ``--port`` (autotune.service.serve_store's default)
DIALECTS = "autotune.hints:DIALECTS"  # the hints dialects, named for ``resolve``


def resolve(name: str) -> Any:
    """``"package.module:attribute"``: the attribute, its module imported on this first use."""
    module, _, attribute = name.partition(":")
    return getattr(importlib.import_module(module), attribute)


def lfs_path(value: str) -> str:
    """``--path`` (argparse type): the directory ``lfs setstripe`` is given; one starting with '-' would be read
    as an option of lfs (``--path=--pool=evil``), an empty one means nothing."""
    if not value.strip() or value.startswith("-"):
        raise argparse.ArgumentTypeError(f"{value!r} is not a directory path (write ./{value} for a name starting "
                                         "with '-')" if value.strip() else "an empty path")
    return value


def finite(text: str) -> float:
    """``tell --value`` (argparse type): a finite number, named as given (``1e999`` is not read as inf)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if value != value or abs(value) == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number (a job that measured nothing "
                                         "tells --exit-status 1)")
    return value


def add_overrides(p: argparse.ArgumentParser) -> None:
    p.add_argument("--study", help="study name (default: the campaign's name)")
    p.add_argument("--storage", help="Optuna storage URL (default: sqlite:///WORKDIR/optuna.db)")
    p.add_argument("--workdir", help="work directory (default: autotune-runs/NAME)")
    p.add_argument("--exchange-rate", metavar="X", help="objective.cost: 1 BB node-hour = X node-hours (overrides "
                   "the campaign's; a report or export recommends under it)")
    p.add_argument("--within", metavar="PCT", help="objective.cost: recommend the cheapest trial within PCT "
                   "(e.g. 10%%) of the fastest")


def add_tune_overrides(p: argparse.ArgumentParser) -> None:
    add_overrides(p)
    p.add_argument("--trials", type=int, help="total trials of the campaign (running again resumes up to this)")
    p.add_argument("--repeats", type=int,
                   help="repetitions per configuration, aggregated by objective.aggregate (default: best of N on a "
                        "shared parallel file system or burst buffer, median of N on node-local storage)")
    p.add_argument("--budget", help="wall-time budget, e.g. 8h or 45m: stops between trials, resumable")
    p.add_argument("--tracking-uri", help="MLflow tracking URI (default: sqlite:///WORKDIR/mlflow.db)")
    p.add_argument("--no-tracking", action="store_true", help="do not log to MLflow")
    p.add_argument("--executor", choices=executor_names(), help="where trials run (default: serial)")


def add_mpi_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--mpiexec", default="mpiexec", help="the launcher's mpiexec (default: mpiexec)")
    p.add_argument("--mpiexec-arg", action="append", default=[], metavar="ARG",
                   help="an argument for mpiexec (repeatable; e.g. --mpiexec-arg=--mca --mpiexec-arg=io ...)")
    p.add_argument("--python", default=sys.executable, help="the ranks' interpreter, with mpi4py (default: this one)")
    p.add_argument("--no-mpi", action="store_true", help="do not start MPI ranks")


class _DialectHelp(str):
    """``--format``'s help, naming the registered dialects only when help is printed: the registry lives with
    the hints renderers, whose import pulls in the space machinery (Optuna, NumPy), which building the parser
    for a job's ``ask`` or ``hints`` must not pay for."""

    def __mod__(self, params: Any) -> str:
        return f"{', '.join(resolve(DIALECTS).names())} (default: env)" % params


def dialect_help() -> str:
    return _DialectHelp("the hints dialect (default: env)")


class DialectChoices:
    """``--format``'s choices, the registered dialects, read only when argparse checks a value or prints them
    (building the parser must not import the hints renderers: see ``_DialectHelp``)."""

    def _names(self) -> list[str]:
        names: list[str] = resolve(DIALECTS).names()
        return names

    def __contains__(self, value: object) -> bool:
        return value in self._names()

    def __iter__(self) -> Any:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())

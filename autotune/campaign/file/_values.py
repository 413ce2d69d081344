"""Checks of the campaign values that reach a process, a file or a store (kept out of ``_config``).

Every function raises a one-line ``ConfigError`` naming the key, the value and what was expected.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from autotune._yaml import check_keys, expect, plain_text, positive_int
from autotune.errors import ConfigError
from autotune.optimize import SINGLE_OBJECTIVE_ONLY
from autotune.tracking import TRACKERS
from autotune.units import parse_duration

ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
SEED_MAX = 2**32 - 1  # numpy's and Optuna's seed range
TRACKING_SCHEMES = ("sqlite", "postgresql", "mysql", "http", "https", "file")
# Pseudo file systems: a work directory there is never what a user meant (and writes fail oddly).
FORBIDDEN_ROOTS = (Path("/proc"), Path("/sys"), Path("/dev"))


def app_args(value: Any) -> dict[str, Any]:
    """``app.args``: a mapping of argument name -> scalar or list (the kernel checks the values)."""
    return check_keys(value, None, "app.args")


def app_env(value: Any) -> dict[str, str]:
    """``app.env``: a mapping of valid variable names -> one-line scalar values."""
    env = check_keys(value, None, "app.env")
    out: dict[str, str] = {}
    for key, v in env.items():
        if not ENV_NAME.match(key):
            raise ConfigError(f"app.env: {key!r} is not a valid environment variable name (letters, digits, '_')")
        if v is None or isinstance(v, (dict, list)):
            raise ConfigError(f"app.env.{key}: {v!r} is not a string or number")
        out[key] = plain_text(v, f"app.env.{key}", "a value")
    return out


def campaign_name(value: Any, pattern: re.Pattern[str], where: str = "name") -> str:
    """A campaign or study name: a non-null string (or number) matching ``pattern``."""
    if value is None or isinstance(value, (bool, dict, list)):
        raise ConfigError(f"{where}: {value!r} is not a name (letters, digits, '_', '.', '-'; at most 100)")
    name = str(value)
    if not pattern.match(name):
        raise ConfigError(f"{where}: {name!r} must be letters, digits, '_', '.', '-' (at most 100)")
    return name


def sampler_values(sampler: dict[str, Any]) -> None:
    """``sampler.seed`` in 0..2^32-1, ``startup_trials`` >= 0, ``options`` a mapping."""
    seed = sampler.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_MAX):
        raise ConfigError(f"sampler.seed: {seed!r} is not an integer in 0..{SEED_MAX}")
    startup = sampler.get("startup_trials")
    if startup is not None and (isinstance(startup, bool) or not isinstance(startup, int) or startup < 0):
        raise ConfigError(f"sampler.startup_trials: {startup!r} is not an integer >= 0")
    if "options" in sampler:
        sampler["options"] = check_keys(sampler["options"], None, "sampler.options")


def tracking(d: dict[str, Any]) -> dict[str, Any]:
    """``tracking``: ``name`` a registered tracker (default mlflow), ``enabled`` true/false, ``uri`` a supported
    scheme whose local directory exists."""
    if "name" in d:
        TRACKERS.check(d["name"], "tracking.name")
    if "enabled" in d:
        expect(d["enabled"], bool, "tracking.enabled", "true or false")
    for key in ("experiment", "artifacts"):
        if key in d:
            expect(d[key], str, f"tracking.{key}", "a string")
            plain_text(d[key], f"tracking.{key}")
    if d.get("uri") is not None:
        tracking_uri(expect(d["uri"], str, "tracking.uri", "a URI such as sqlite:///path/mlflow.db"),
                     "tracking.uri")
    return d


def tracking_uri(uri: str, where: str) -> str:
    """An MLflow URI autotune can use: sqlite/postgresql/mysql/http(s)/file; a local file's directory must exist."""
    plain_text(uri, where, "a URI")
    scheme = urlsplit(uri).scheme.split("+")[0].lower()
    if scheme not in TRACKING_SCHEMES:
        raise ConfigError(f"{where}: {uri!r} has an unsupported scheme {scheme or '(none)'!r} "
                          f"(expected one of {', '.join(TRACKING_SCHEMES)})")
    if scheme == "file" and os.environ.get("MLFLOW_ALLOW_FILE_STORE", "").lower() != "true":
        raise ConfigError(f"{where}: {uri!r}: MLflow (3.13 and later) no longer writes file stores; use a database "
                          "such as sqlite:///PATH/mlflow.db (or set MLFLOW_ALLOW_FILE_STORE=true)")
    local = uri.split("://", 1)[1] if "://" in uri else ""
    if scheme == "sqlite":
        local = local[1:] if local.startswith("/") else local  # sqlite:///rel or sqlite:////abs
    if scheme in ("sqlite", "file") and local and local != ":memory:":
        parent = Path(local.split("?", 1)[0]).expanduser().parent
        if not parent.is_dir():
            raise ConfigError(f"{where}: {uri!r}: directory {str(parent)!r} does not exist (create it first)")
    return uri


MAX_REPEATS = 1000  # repetitions of one configuration: past this a campaign is a noise study, not tuning
MAX_TRIALS = 100_000  # trials of one campaign: far beyond any search budget (Optuna keeps every trial in the store)


def metric_name(value: Any) -> str:
    """``objective.metric``: the name of the figure the extractor reads (a null or a number is a typo)."""
    name = plain_text(expect(value, str, "objective.metric", "a metric name such as bandwidth_mib_s or seconds"),
                      "objective.metric", "a metric name")
    if not name.strip():
        raise ConfigError("objective.metric: '' is not a metric name (e.g. bandwidth_mib_s or seconds)")
    return name


def storage_url(value: Any, where: str) -> str:
    """An Optuna storage URL: ``:memory:``, ``grpc://HOST:PORT`` or one SQLAlchemy can parse (``sqlite:///PATH``,
    ``postgresql://...``); whether the store opens is the storage's business, said when it is opened."""
    url = plain_text(value, where, "a storage URL")
    if url in (":memory:", "memory") or url.startswith(("grpc://", "grpc+unix://")):
        return url
    from sqlalchemy.engine import make_url  # lazy: `autotune ask` over gRPC needs no SQLAlchemy
    from sqlalchemy.exc import ArgumentError  # lazy: `autotune ask` over gRPC needs no SQLAlchemy

    try:
        make_url(url)
    except ArgumentError:
        raise ConfigError(f"{where}: {url!r} is not a storage URL (expected :memory:, sqlite:///PATH, "
                          "postgresql://USER@HOST/DB, grpc://HOST:PORT or grpc+unix:///PATH)") from None
    return url


def repeats(value: Any, where: str) -> int:
    """``objective.repeats`` / ``--repeats``: 1..``MAX_REPEATS``."""
    n = positive_int(value, where)
    if n > MAX_REPEATS:
        raise ConfigError(f"{where}: {n} repetitions per configuration (at most {MAX_REPEATS})")
    return n


def trials(value: Any, where: str) -> int:
    """``budget.trials`` / ``--trials``: 1..``MAX_TRIALS``."""
    n = positive_int(value, where)
    if n > MAX_TRIALS:
        raise ConfigError(f"{where}: {n} trials (at most {MAX_TRIALS})")
    return n


def nonempty_path(value: Any, where: str) -> str:
    """A path given as text: an empty one would silently mean the current directory."""
    text = plain_text(value, where, "a path")
    if not text.strip():
        raise ConfigError(f"{where}: an empty path (expected a directory or file name; '.' for the current directory)")
    return text


def workdir_path(path: Path, where: str = "workdir") -> Path:
    """Refuse a work directory that is a file, lies in /proc, /sys or /dev, or whose name holds a control
    character (it is printed in comments of text meant for pasting) (checked at load)."""
    plain_text(str(path), where, "a directory name")
    resolved = path.resolve()
    for root in FORBIDDEN_ROOTS:
        if resolved == root or root in resolved.parents:
            raise ConfigError(f"{where}: {str(path)!r} is under {root} (a pseudo file system): choose a real directory")
    if resolved.exists() and not resolved.is_dir():
        raise ConfigError(f"{where}: {str(path)!r} exists and is not a directory")
    for parent in resolved.parents:
        if parent.exists():
            if not parent.is_dir():
                raise ConfigError(f"{where}: {str(parent)!r} (in {str(path)!r}) is not a directory")
            break
    return path


def cost_combinations(adaptive: bool, sampler: dict[str, Any]) -> None:
    """``objective.cost`` makes the study multi-objective: what only works with one objective is refused."""
    if adaptive:
        raise ConfigError("objective.adaptive: not with objective.cost (adaptive repetitions race one incumbent "
                          "value; a Pareto front has none): remove one of them")
    name = str(sampler.get("name"))
    if name in SINGLE_OBJECTIVE_ONLY:
        raise ConfigError(f"sampler.name: {name!r} optimises one objective; with objective.cost use "
                          "autotune (TPE multi-objective), tpe, nsga2, random or grid")
    if "warm_start" in sampler:
        raise ConfigError("sampler.warm_start: not with objective.cost (the source study's trials have no cost "
                          "to seed a Pareto front with)")


CONFIRM_KEYS = frozenset({"rounds", "matters", "time", "runs"})


def confirm_budget(value: Any, default_rounds: int,
                   default_matters: float) -> tuple[int, float, float | None, int | None]:
    """``objective.confirm``: 0 (off), a number of rounds at most, or {rounds, matters, time, runs} -> (rounds, the
    smallest gain worth recommending, seconds at most, runs at most; None: as many as the search made)."""
    d = check_keys(value, CONFIRM_KEYS, "objective.confirm") if isinstance(value, dict) else {"rounds": value}
    rounds = d.get("rounds", default_rounds)
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 0 or rounds == 1:
        raise ConfigError(f"objective.confirm: {rounds!r} is not 0 (off) or a number of rounds >= 2")
    matters = d.get("matters", default_matters)
    if isinstance(matters, bool) or not isinstance(matters, (int, float)) or not 0 <= matters < 1:
        raise ConfigError(f"objective.confirm.matters: {matters!r} is not a fraction in [0, 1) (0.05: a 5% gain)")
    seconds = parse_duration(d["time"], "objective.confirm.time") if "time" in d else None
    runs = d.get("runs", "search")
    if runs == "search":
        runs = None
    elif isinstance(runs, bool) or not isinstance(runs, int) or runs < 4:
        raise ConfigError(f"objective.confirm.runs: {runs!r} is not 'search' (as many runs as the search made) "
                          "or a number of runs >= 4")
    return rounds, float(matters), seconds, runs

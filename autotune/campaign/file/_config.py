"""The campaign file: validated into a ``Campaign`` (unknown keys rejected, every value checked)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from autotune._yaml import check_keys, expect, load_yaml, plain_text, positive_int, read_text
from autotune.campaign.file import _values as _checks
from autotune.campaign.file._cost import CostObjective, parse_cost
from autotune.campaign.file._localmpi import local_mpi
from autotune.campaign.file._names import check_study_name, data_root_for
from autotune.campaign.file._persistent import parse_reservation
from autotune.errors import ConfigError
from autotune.kernels import KERNELS
from autotune.launch import AppSpec, Persistent
from autotune.measure import AGGREGATES, CANONICAL, check_direction, default_aggregate, metric_unit
from autotune.optimize import DEFAULT_SAMPLER, SAMPLERS
from autotune.pattern import MAX_RANKS, IOPattern
from autotune.space import CATALOGUE, SearchSpace, load_space
from autotune.systems import FileSystem, SystemProfile, load_system
from autotune.tracking import active_tracker
from autotune.units import parse_duration

TOP_KEYS = frozenset({"name", "description", "app", "system", "target", "space", "objective", "budget", "sampler",
                      "launcher", "storage", "study", "tracking", "workdir", "executor", "baseline"})
APP_KEYS = frozenset({"name", "kernel", "args", "command", "ranks", "nodes", "pattern", "env", "mpiexec", "metric",
                      "hint_files", "cwd", "reads"})
OBJECTIVE_KEYS = frozenset({"metric", "direction", "repeats", "aggregate", "adaptive", "remeasure", "confirm", "cost"})
BUDGET_KEYS = frozenset({"trials", "wall_time", "run_timeout"})
SAMPLER_KEYS = frozenset({"name", "seed", "startup_trials", "options", "prior", "warm_start", "rules_of_thumb"})
PRIOR_KEYS = frozenset({"top", "scale", "refit", "diverse"})
WARM_KEYS = frozenset({"storage", "study", "top", "history"})
TRACKING_KEYS = frozenset({"name", "uri", "experiment", "enabled", "artifacts"})
SPACE_KEYS = frozenset({"use", "only", "exclude", "fixed", "parameters"})
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")


@dataclass(frozen=True)
class Objective:
    metric: str = "bandwidth_mib_s"
    direction: str = "maximize"
    repeats: int = 3
    aggregate: str = "median"  # of N repetitions; by default best (one-sided interference) or median (measure.default_aggregate)
    adaptive: bool = False  # repeat a configuration only while it can still beat the incumbent
    remeasure: int = 0      # with adaptive: re-measure the top few at the end before recommending
    kind: str | None = None  # what the metric measures: bandwidth | time | score (None: not said)
    confirm: int = 80       # interleaved rounds of the final confirmation at most (campaign/confirm/_recommend.py); 0: off
    confirm_matters: float = 0.05  # the smallest gain worth recommending (the confirmation stops below it)
    confirm_seconds: float | None = None  # the confirmation's time budget (objective.confirm.time)
    confirm_runs: int | None = None  # its runs at most (objective.confirm.runs; None: as many as the search made)
    cost: CostObjective | None = None  # a second objective: node-hours + BB node-hours (campaign/file/_cost.py)

    @property
    def maximize(self) -> bool:
        return self.direction == "maximize"

    @property
    def unit(self) -> str:
        """The canonical unit values are stored in: MiB/s for a bandwidth, s for a time, '' otherwise."""
        return CANONICAL.get(self.kind or "", "")


@dataclass(frozen=True)
class Budget:
    trials: int | None = 20
    wall_time: float | None = None
    run_timeout: float = 600.0


@dataclass(frozen=True)
class Campaign:
    """A validated campaign: what to run, where, over which space, towards which objective, for how long."""

    name: str
    app: AppSpec
    system: SystemProfile
    fs: FileSystem
    space: SearchSpace
    objective: Objective
    budget: Budget
    sampler: dict[str, Any]
    launcher: dict[str, Any]
    workdir: Path
    storage_url: str | None
    study: str
    tracking: dict[str, Any]
    metric: dict[str, Any]
    data_path: str | None
    executor: dict[str, Any] = field(default_factory=dict)
    description: str = ""
    baseline: dict[str, Any] = field(default_factory=dict)  # the app's own settings (checked when bound)
    source: Path | None = None
    text: str = ""
    persistent: Persistent | None = None  # target.bb.persistent: a DataWarp reservation all trial jobs use

    def with_overrides(self, **kw: Any) -> Campaign:
        return replace(self, **kw)

    @property
    def storage(self) -> str:
        """The Optuna storage URL (default: SQLite in the work directory; ':memory:' for none)."""
        return self.storage_url or f"sqlite:///{self.workdir / 'optuna.db'}"

    @property
    def tracking_uri(self) -> str:
        return str(self.tracking.get("uri") or f"sqlite:///{self.workdir / 'mlflow.db'}")

    @property
    def mlflow_uri(self) -> str | None:
        """The MLflow store this campaign writes, or None when it does not track to MLflow (``tracking.enabled:
        false``, ``name: none``, or another tracker): ``autotune.tracking.active_tracker`` decides."""
        return self.tracking_uri if active_tracker(self.tracking) == "mlflow" else None

    @cached_property  # once per campaign: the cleanup and every trial agree on it
    def data_root(self) -> Path:
        """Where the data directories go: target.path, else the file system's path, else <workdir>/data, and
        never a file system's root (``_names.data_root_for``)."""
        return data_root_for(self.data_path, self.workdir, self.study, [f.path for f in self.system.filesystems.values()])

    @property
    def data_note(self) -> str:
        """Where the data goes, when the path given (target.path or the file system's) was a root: else ''."""
        if not self.data_path or self.data_root == Path(self.data_path).expanduser():
            return ""
        return (f"trial data goes to {self.data_root}: {self.data_path} is a file system's root "
                "(target.path names a folder of yours instead)")


def _reads(value: Any) -> tuple[str, ...]:
    """``app.reads``: parameters the command reads from AUTOTUNE_PARAM_* (catalogue names)."""
    expect(value, list, "app.reads", "a list of parameter names")
    for name in value:
        if name not in CATALOGUE:
            raise ConfigError(f"app.reads: unknown parameter {name!r} (known: {', '.join(sorted(CATALOGUE))})")
    return tuple(str(n) for n in value)


def _parse_app(d: dict[str, Any], base: Path) -> tuple[AppSpec, dict[str, Any]]:
    a = check_keys(d, APP_KEYS, "app")
    has_kernel, has_command = "kernel" in a, "command" in a
    if has_kernel == has_command:
        raise ConfigError(f"app: give exactly one of 'kernel' ({', '.join(KERNELS.names())}) or 'command' (an argv list)")
    ranks = positive_int(a.get("ranks", 1), "app.ranks")
    if ranks > MAX_RANKS:
        raise ConfigError(f"app.ranks: {ranks} is more than {MAX_RANKS} (more ranks than any machine has)")
    nodes = positive_int(a.get("nodes", 1), "app.nodes")
    if nodes > ranks:
        raise ConfigError(f"app.nodes: {nodes} exceeds app.ranks ({ranks})")
    args = _checks.app_args(a.get("args", {}))
    command: tuple[str, ...] = ()
    pattern_d: dict[str, Any] = {}
    if has_kernel:
        pattern_d = KERNELS.get(a["kernel"]).pattern(args, ranks)
        default_metric: dict[str, Any] = {"extractor": "json"}
    else:
        cmd = a["command"]
        if isinstance(cmd, str) or not isinstance(cmd, list) or not cmd or not all(isinstance(x, (str, int, float)) for x in cmd):
            raise ConfigError(f"app.command: {cmd!r} is not a non-empty list of arguments (no shell string)")
        command = tuple(str(x) for x in cmd)
        default_metric = {"extractor": "walltime"}
    user_pattern = check_keys(a.get("pattern", {}), set(IOPattern.__dataclass_fields__) | {"ranks_per_node"}, "app.pattern")
    merged = {"bytes_per_rank": 1 << 20, **pattern_d, **user_pattern, "ranks": ranks, "nodes": nodes}
    pattern = IOPattern.from_dict(merged, "app.pattern")
    env = _checks.app_env(a.get("env", {}))
    hint_files = a.get("hint_files", ["*"])
    expect(hint_files, list, "app.hint_files", "a list of file patterns")
    metric = dict(check_keys(a.get("metric", default_metric), {"extractor", "field", "pattern", "stream", "aggregate",
                                                                 "scale", "bytes", "unit", "logs"}, "app.metric"))
    if "field" in metric and not expect(metric["field"], str, "app.metric.field", "a field name").strip():
        raise ConfigError("app.metric.field: an empty field name (expected e.g. 'bandwidth_mib_s' or 'results.bw')")
    app = AppSpec(
        name=str(a.get("name", a.get("kernel", Path(command[0]).name if command else "app"))),
        pattern=pattern, kernel=str(a["kernel"]) if has_kernel else None, args=args, command=command,
        mpiexec=bool(expect(a.get("mpiexec", True), bool, "app.mpiexec", "true or false")),
        env=env, hint_files=tuple(plain_text(h, "app.hint_files", "a file pattern") for h in hint_files),
        cwd=(base / str(a.get("cwd", "."))).resolve(), reads=_reads(a.get("reads", [])),
    )
    return app, metric


def _parse_space(value: Any, base: Path) -> SearchSpace:
    if isinstance(value, str):
        return load_space(value, base)
    s = check_keys(value, SPACE_KEYS, "space", required=("use",))
    space = load_space(str(s["use"]), base)
    for key in ("only", "exclude"):
        if key in s:
            for n in expect(s[key], list, f"space.{key}", "a list of parameter names"):
                expect(n, str, f"space.{key}", "a list of parameter names")
    if s.get("only") == []:  # an empty list would otherwise mean "no restriction": everything
        raise ConfigError("space.only: an empty list (name the parameters to search, or leave 'only' out for all)")
    return space.customise(only=s.get("only"), exclude=s.get("exclude"), fixed=s.get("fixed"),
                           parameters=s.get("parameters"), where="space")


def parse_campaign(data: dict[str, Any], base: Path, source: Path | None = None, text: str = "") -> Campaign:
    d = check_keys(data, TOP_KEYS, "campaign", required=("app", "space"))
    name = _checks.campaign_name(d["name"] if "name" in d else (source.stem if source else "campaign"), _NAME_RE)
    app, metric = _parse_app(expect(d["app"], dict, "app", "a mapping"), base)
    system = load_system(str(d.get("system", "local")), base)
    target = d.get("target", {})
    if target == "model":  # `target: model`: the performance model of the system's default file system
        if "launcher" in d and (d["launcher"] if isinstance(d["launcher"], str) else d["launcher"].get("name")) != "model":
            raise ConfigError("target: 'model' runs on the performance model; remove the launcher or make it 'model'")
        target, d["launcher"] = {}, d.get("launcher", {"name": "model"})
    t = check_keys(target, {"filesystem", "path", "bb"}, "target")
    for key in ("filesystem", "path"):
        if t.get(key) is not None:
            plain_text(expect(t[key], str, f"target.{key}", "a string"), f"target.{key}")
    fs = system.filesystem(t.get("filesystem"))
    space = _parse_space(d["space"], base)
    o = check_keys(d.get("objective", {}), OBJECTIVE_KEYS, "objective")
    metric_name = _checks.metric_name(o.get("metric", "bandwidth_mib_s" if app.kernel else "seconds"))
    mu = metric_unit(metric, metric_name)
    objective = Objective(
        metric=metric_name, kind=mu.kind,
        direction=check_direction(mu, metric_name, str(o["direction"]) if "direction" in o else None),
        repeats=_checks.repeats(o.get("repeats", 3), "objective.repeats"),
        aggregate=str(o.get("aggregate", "auto")),
    )
    sampler = _parse_sampler(d)
    # Off unless asked: by default every configuration runs `repeats` times and all values are stored.
    adaptive = expect(o.get("adaptive", False), bool, "objective.adaptive", "true or false")
    remeasure = o.get("remeasure", 3 if adaptive else 0)
    if isinstance(remeasure, bool) or not isinstance(remeasure, int) or remeasure < 0:
        raise ConfigError(f"objective.remeasure: {remeasure!r} is not an integer >= 0")
    confirm, matters, confirm_s, confirm_runs = _checks.confirm_budget(
        o.get("confirm", Objective.confirm), Objective.confirm, Objective.confirm_matters)
    objective = replace(objective, adaptive=bool(adaptive), remeasure=remeasure, confirm=confirm,
                        confirm_matters=matters, confirm_seconds=confirm_s, confirm_runs=confirm_runs,
                        cost=parse_cost(o.get("cost"), system))
    if objective.cost is not None:
        _checks.cost_combinations(objective.adaptive, sampler)
    if objective.aggregate == "auto":  # the target's noise decides: measure.default_aggregate
        objective = replace(objective, aggregate=default_aggregate(fs.kind))
    if objective.aggregate not in AGGREGATES:
        raise ConfigError(f"objective.aggregate: {objective.aggregate!r} is not one of auto, {', '.join(AGGREGATES)}")
    b = check_keys(d.get("budget", {}), BUDGET_KEYS, "budget")
    budget = Budget(
        trials=(_checks.trials(b["trials"], "budget.trials") if b.get("trials") is not None
                else (None if "wall_time" in b else 20)),
        wall_time=parse_duration(b["wall_time"], "budget.wall_time") if "wall_time" in b else None,
        run_timeout=parse_duration(b.get("run_timeout", 600), "budget.run_timeout"),
    )
    launcher = d.get("launcher", {"name": "local"})
    launcher = {"name": launcher} if isinstance(launcher, str) else dict(expect(launcher, dict, "launcher", "a mapping"))
    launcher.setdefault("name", "local")
    executor = d.get("executor", {"name": "serial"})
    executor = {"name": executor} if isinstance(executor, str) else dict(expect(executor, dict, "executor", "a mapping"))
    workdir = Path(_checks.nonempty_path(d.get("workdir", str(Path("autotune-runs") / name)), "workdir")).expanduser()
    workdir = _checks.workdir_path((Path.cwd() / workdir).resolve() if not workdir.is_absolute() else workdir)
    tracking = _checks.tracking(check_keys(d.get("tracking", {}), TRACKING_KEYS, "tracking"))
    path = t.get("path") or fs.path
    if launcher["name"] == "local" and app.cwd is not None and not app.cwd.is_dir():  # elsewhere: on the cluster
        raise ConfigError(f"app.cwd: {str(app.cwd)!r} is not a directory (the app starts there)")
    persistent = parse_reservation(t.get("bb"), fs, app, launcher)
    system = local_mpi(system, app, launcher)  # `mpi: {flavour: detect}` (system: local): the launcher's MPI
    return Campaign(
        name=name, app=app, system=system, fs=fs, space=space, objective=objective, budget=budget,
        sampler=sampler, launcher=launcher, workdir=workdir,
        storage_url=_checks.storage_url(d["storage"], "storage") if d.get("storage") else None,
        study=check_study_name(d.get("study", name), "study"),
        tracking=tracking, metric=metric, data_path=str(path) if path else None, executor=executor,
        description=str(d.get("description", "")), source=source, text=text,
        baseline=dict(expect(d["baseline"] if d.get("baseline") is not None else {}, dict, "baseline",
                             "a mapping of parameter -> value")),
        persistent=persistent,
    )


def _parse_sampler(d: dict[str, Any]) -> dict[str, Any]:
    """``sampler:`` (a name or a mapping); ``prior`` and ``warm_start`` are checked here."""
    raw = d.get("sampler", {"name": DEFAULT_SAMPLER})
    sampler = dict(check_keys({"name": raw} if isinstance(raw, str) else raw, SAMPLER_KEYS, "sampler"))
    sampler.setdefault("name", DEFAULT_SAMPLER)
    _checks.sampler_values(sampler)
    SAMPLERS.get(sampler["name"]).check_options(sampler.get("options"), "sampler.options")  # at load: exit 2
    expect(sampler.get("rules_of_thumb", True), bool, "sampler.rules_of_thumb", "true or false")
    prior = sampler.get("prior")
    if isinstance(prior, dict):
        p = check_keys(prior, PRIOR_KEYS, "sampler.prior")
        if "top" in p:
            positive_int(p["top"], "sampler.prior.top")
        expect(p.get("diverse", True), bool, "sampler.prior.diverse", "true or false")
        scale = expect(p.get("scale", {}), dict, "sampler.prior.scale", "a mapping of model constant -> factor")
        for k, v in scale.items():
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0:
                raise ConfigError(f"sampler.prior.scale.{k}: {v!r} is not a positive number")
        expect(p.get("refit", False), bool, "sampler.prior.refit", "true or false")
        if p.get("refit") and sampler["name"] != "autotune":
            raise ConfigError(f"sampler.prior.refit: the model in the loop needs sampler autotune, not {sampler['name']}")
    elif prior is not None and not isinstance(prior, bool) and not (isinstance(prior, int) and prior >= 0):
        raise ConfigError(f"sampler.prior: {prior!r} is not true/false, a count >= 0 or a mapping {{top, scale, refit}}")
    if "warm_start" in sampler:
        w = check_keys(sampler["warm_start"], WARM_KEYS, "sampler.warm_start", required=("storage", "study"))
        if "top" in w and (isinstance(w["top"], bool) or not isinstance(w["top"], int) or w["top"] < 0):
            raise ConfigError(f"sampler.warm_start.top: {w['top']!r} is not an integer >= 0")
        expect(w.get("history", True), bool, "sampler.warm_start.history", "true or false")
    return sampler


def load_campaign(path: str | Path) -> Campaign:
    """Read and validate a campaign file; every problem is a one-line ConfigError."""
    p = Path(path)
    data = load_yaml(p, "campaign file")
    return parse_campaign(data, p.resolve().parent, source=p.resolve(), text=read_text(p, "campaign file"))

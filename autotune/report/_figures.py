"""A target's figures, computed from the campaign's Optuna storage (the source of truth)."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import optuna
from optuna.trial import FrozenTrial, TrialState

from autotune import trialrecord
from autotune.campaign import CostObjective, Point, Runtime, best_trial, default_trial, points, ran_trials, summary, value_of
from autotune.tiers import DATAWARP, TIERS, Tier

MIB_METRIC = "bandwidth"


@dataclass(frozen=True)
class TrialRow:
    """One trial that was run: its value (the campaign's aggregate of N), repetitions, configuration and cost."""

    number: int
    state: str
    value: float | None
    repetitions: tuple[float | None, ...]
    config: dict[str, Any]
    is_default: bool
    wall_s: float
    bb_nodes: int | None
    stripe_count: int | None
    aggregators: int | None
    service: str = ""  # a production job's trial (``autotune ask``): best | default | explore

    @property
    def ok_reps(self) -> list[float]:
        return [float(v) for v in self.repetitions if v is not None]


@dataclass
class TargetFigures:
    """Everything the report says about one target (one campaign)."""

    label: str
    campaign: str
    study: str
    storage: str
    tracking_uri: str | None
    app: str
    system: str
    filesystem: str
    fs_kind: str  # the profile's kind (a tier's name)
    metric: str
    direction: str
    repeats: int
    nodes: int
    ranks: int
    trials: list[TrialRow]
    best: TrialRow | None
    default: TrialRow | None
    speedup: float | None
    hints_text: str
    best_is_default: bool
    node_hours: float
    bb_node_hours: float
    time_spent_s: float
    importance: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    canonical_unit: str | None = None  # the unit values are stored in (the campaign's metric kind)
    cost_rule: CostObjective | None = None  # objective.cost: the rule, every trial's cost parts, the front
    points: list[Point] = field(default_factory=list)
    aggregate: str = "median"  # how a trial's value aggregates its repetitions (objective.aggregate)
    confirmation: dict[str, Any] | None = None  # the campaign's confirmation (None: not confirmed)
    claim: str = ""  # the confirmed recommendation's gain over the default and over the best rule of thumb
    searched: tuple[str, ...] = ()  # the parameters the campaign searched
    source: str = ""  # the campaign file (the command that confirms it names it)

    @property
    def tier(self) -> Tier:
        """The tier of the target (its ``fs_kind``'s entry in ``TIERS``)."""
        return TIERS.get(self.fs_kind)

    @property
    def maximize(self) -> bool:
        return self.direction == "maximize"

    @property
    def unit(self) -> str:
        if self.canonical_unit is not None:
            return self.canonical_unit
        return "MiB/s" if MIB_METRIC in self.metric else "s" if "seconds" in self.metric else ""

    def better(self, a: float, b: float) -> bool:
        """True when value ``a`` is better than ``b`` for this metric's direction."""
        return a > b if self.maximize else a < b


def _int(v: Any) -> int | None:
    try:
        return int(v) if v is not None else None
    except (TypeError, ValueError):
        return None


def _row(rt: Runtime, t: FrozenTrial) -> TrialRow:
    rec = trialrecord.read(t)
    config = dict(rec.config or rt.config_of(t))
    eff = rec.hints_in_effect
    wall = sum(float(r.get("wall_s", 0.0)) for r in rec.run_info if isinstance(r, dict))
    if not rec.run_info:
        wall = float(rec.duration_s)
    bb = _int(config.get("bb.nodes", eff.get("bb_nodes")))
    if bb is None and rt.campaign.fs.tier is DATAWARP:
        bb = _int(rt.space.default_config().get("bb.nodes"))
    stripe = _int(config.get("lustre.stripe_count", eff.get("striping_factor")))
    aggs = _int(config.get("mpiio.cb_nodes", eff.get("cb_nodes")))
    reps = tuple(None if v is None else float(v) for v in rec.repetitions)
    return TrialRow(t.number, t.state.name, value_of(t), reps, config, rec.is_default, wall, bb, stripe, aggs, rec.service)


def importance(study: optuna.Study) -> dict[str, float]:
    """Parameter importance (fANOVA) over the completed trials that were run; empty when too few."""
    done = [t for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)) if trialrecord.read(t).ran]
    varying = {k for t in done for k in t.params if len({repr(u.params.get(k)) for u in done}) > 1}
    if len(done) < 4 or not varying or len({value_of(t) for t in done}) < 2:
        return {}
    view = optuna.create_study(directions=study.directions)  # one or two objectives: importance for the metric
    view.add_trials(done)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ev = optuna.importance.FanovaImportanceEvaluator(seed=0)
            return {k: float(v) for k, v in optuna.importance.get_param_importances(
                view, evaluator=ev, params=sorted(varying),
                target=lambda t: float(t.values[0])).items()}
    except (ValueError, RuntimeError):
        return {}


def target_figures(rt: Runtime, study: optuna.Study) -> TargetFigures:
    """The figures of one campaign as they stand in its storage."""
    c = rt.campaign
    s = summary(rt, study)
    rows = [_row(rt, t) for t in sorted(ran_trials(study), key=lambda t: t.number)]
    by_number = {r.number: r for r in rows}
    b, d = best_trial(study, c.objective.cost), default_trial(study)
    node_h = sum(r.wall_s for r in rows) * c.app.pattern.nodes / 3600.0
    bb_h = sum(r.wall_s * (r.bb_nodes or 0) for r in rows) / 3600.0 if c.fs.tier is DATAWARP else 0.0
    label = f"{c.system.name}/{c.fs.name}"
    return TargetFigures(
        label=label, campaign=c.name, study=c.study, storage=c.storage,
        tracking_uri=c.mlflow_uri, app=c.app.name,
        system=c.system.name, filesystem=c.fs.name, fs_kind=c.fs.kind, metric=c.objective.metric,
        direction=c.objective.direction, repeats=c.objective.repeats, nodes=c.app.pattern.nodes,
        ranks=c.app.pattern.ranks, trials=rows, best=by_number.get(b.number) if b else None,
        default=by_number.get(d.number) if d else None, speedup=s.get("speedup_over_default"),
        hints_text=str(s.get("hints_text", "")), best_is_default=bool(s.get("best_is_default", False)),
        node_hours=node_h, bb_node_hours=bb_h, time_spent_s=float(s["time_spent_s"]), importance=importance(study),
        canonical_unit=c.objective.unit, cost_rule=c.objective.cost,
        points=points(study) if c.objective.cost is not None else [], aggregate=c.objective.aggregate,
        confirmation=s.get("confirmation"), claim=str(s.get("claim", "")),
        searched=tuple(p.name for p in rt.space.active), source=str(c.source or f"{c.name}.yaml"),
    )


def unique_labels(figs: list[TargetFigures]) -> None:
    """Make labels unique (campaign name added when two targets share system/file system)."""
    seen: dict[str, int] = {}
    for f in figs:
        seen[f.label] = seen.get(f.label, 0) + 1
    for f in figs:
        if seen[f.label] > 1:
            f.label = f"{f.campaign} ({f.label})"

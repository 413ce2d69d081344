"""The confirmation of a finished campaign: its candidates (the best physically distinct configurations), their
pooled history, the run of ``confirm`` on the study, and the configuration it recommends for export.

The statistics (interleaved rounds, the looks, the ablation) are in ``autotune.campaign.confirm._sequential``."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict
from typing import Any

import optuna
from optuna.trial import TrialState

from autotune import trialrecord
from autotune.campaign.confirm._budget import runs_budget
from autotune.campaign.confirm._claim import ConfirmationClaim
from autotune.campaign.confirm._record import Confirmation
from autotune.campaign.confirm._sequential import TOP, confirm, physical, run_plan
from autotune.campaign.study import in_space
from autotune.campaign.trial import Runtime, run_trial
from autotune.hints import acting, measured_phases
from autotune.space import Config


def pooled_history(runs: Sequence[tuple[int, Config, Sequence[float | None]]], default: Config,
                   top: Sequence[tuple[int, Config]], phases: Sequence[str]) -> dict[int, list[list[float]]]:
    """The campaign's earlier runs per candidate (trial number; -1: the default), one block per trial: every trial
    of the physically same configuration, except the candidate's own trial (chosen because it was lucky)."""
    keyed = [(n, physical(cfg, default, phases), [float(v) for v in vs if v is not None]) for n, cfg, vs in runs]
    out: dict[int, list[list[float]]] = {}
    for n, cfg in [(-1, default), *top]:
        key = physical(cfg, default, phases)
        out[n] = [vs for m, k, vs in keyed if k == key and (m != n or n == -1) and vs]
    return out


def top_physical(ranked: Sequence[tuple[int, Config]], default: Config, phases: Sequence[str],
                 k: int = TOP) -> list[tuple[int, Config]]:
    """The best trial of each of the ``k`` best physically distinct configurations (twins of the default left out)."""
    seen = [physical(default, default, phases)]
    top: list[tuple[int, Config]] = []
    for n, cfg in ranked:
        key = physical(cfg, default, phases)
        if key not in seen:
            seen.append(key)
            top.append((n, cfg))
        if len(top) == k:
            break
    return top


def confirm_campaign(rt: Runtime, study: optuna.Study, rounds: int,
                     say: Callable[[str], None] = print, seconds_left: float | None = None) -> Confirmation | None:
    """Run the confirmation of a finished campaign and store it on the study (``confirmation``), unless another
    worker of the campaign runs it or ran it on the same trials (``_claim``: one line through ``say``).

    Its budget (``_budget``): at most as many runs as the search made (or ``objective.confirm.runs``), at
    most ``rounds`` rounds, and at most ``objective.confirm.time`` or ``seconds_left`` of ``budget.wall_time``."""
    c = rt.campaign
    ran = [t for t in in_space(study, study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)))
           if trialrecord.read(t).ran and t.value is not None]
    done = [t for t in ran if not trialrecord.read(t).is_default]
    if not done:
        return None
    done.sort(key=lambda t: float(t.value or 0.0), reverse=c.objective.maximize)
    phases = measured_phases(c.objective.metric, c.app.pattern.phases)
    default_cfg = rt.space.default_config()
    top = top_physical([(t.number, rt.config_of(t)) for t in done], default_cfg, phases)
    if not top:
        return None
    runs = [(-1 if r.is_default else t.number, default_cfg if r.is_default else rt.config_of(t), list(r.repetitions))
            for t in ran for r in (trialrecord.read(t),)]
    rule = best_rule(done, rt)  # the best rule of thumb, a comparator beside the default
    compared = top + ([(rule[0], rule[1])] if rule is not None and rule[0] not in [n for n, _ in top] else [])

    def measure(config: Config, is_default: bool, number: int) -> float | None:
        o = run_trial(rt, number, config, is_default, 1)
        return o.repetitions[0] if o.repetitions else None

    max_runs, why = runs_budget(c, study)
    k, most = run_plan(max_runs, len(top), rounds)
    if most < 2:
        say(f"confirmation: skipped: its budget of {max_runs} run(s) ({why}) cannot run 2 rounds "
            "of the default and a candidate; the search's best is not shown better (raise budget.trials or "
            "objective.confirm.runs)")
        return None
    limits = [x for x in (c.objective.confirm_seconds, seconds_left) if x is not None]
    claim = ConfirmationClaim(study, c.storage, rt.worker, [t.number for t in ran])
    if not claim.take(say):
        return None
    also = f", the best rule of thumb ({rule[2]}, trial {rule[0]}) as a comparator" if rule is not None else ""
    say(f"confirming: the top {k} configuration(s){also} and the default, at most {most} interleaved rounds and "
        f"{max_runs} runs ({why}; fewer once the margin is shown or shown not to matter), then an ablation of the "
        "winner's settings (results in the summary)")
    with claim.beating():
        conf = confirm(default_cfg, top, rounds, measure, c.objective.maximize, phases,
                       history=pooled_history(runs, default_cfg, compared, phases), matters=c.objective.confirm_matters,
                       seconds=min(limits) if limits else None, aggregate=c.objective.aggregate, rule=rule,
                       max_runs=max_runs)
    default = next((t for t in ran if trialrecord.read(t).is_default), None)
    if default is not None and default.value:
        best = done[0].value or 0.0
        conf.best_of_n_gain = best / default.value - 1 if c.objective.maximize else default.value / best - 1
    return conf if claim.record(asdict(conf), say) else None


def shown_not_in_effect(study: optuna.Study, best: optuna.trial.FrozenTrial) -> dict[str, Any]:
    """What the recommended configuration's own trial showed not in effect (its ``hints_not_in_effect``): the
    confirmed winner's trial when the study was confirmed, else ``best``."""
    conf: Mapping[str, Any] | None = trialrecord.read_study(study).confirmation
    number = best.number
    if conf is not None:
        won = next((c for c in conf.get("candidates") or [] if isinstance(c, Mapping) and c.get("label") == conf.get("winner")),
                   None)
        if won is not None and isinstance(won.get("trial"), int) and won["trial"] >= 0:
            number = won["trial"]
    trial = best
    if number != best.number:
        try:
            storage = study._storage
            trial = storage.get_trial(storage.get_trial_id_from_study_id_trial_number(study._study_id, number))
        except KeyError:  # a trial that is no longer in the study: nothing known against its settings
            return {}
    return dict(trialrecord.read(trial).hints_not_in_effect or {})


def best_rule(done: Sequence[optuna.trial.FrozenTrial], rt: Runtime) -> tuple[int, Config, str] | None:
    """(trial, configuration, name) of the best rule of thumb among ``done`` (sorted best first), or None."""
    t = next((t for t in done if trialrecord.read(t).rule_of_thumb), None)
    return None if t is None else (t.number, rt.config_of(t), trialrecord.read(t).rule_of_thumb)


def recommended_config(rt: Runtime, study: optuna.Study, best: optuna.trial.FrozenTrial) -> tuple[Config, bool]:
    """The configuration to export and whether it is the system's defaults: the confirmed one, else the best
    trial's settings that differ from the default and can act; either way without the settings that cannot act
    on the target (``acting``: inert beside the fixed settings, or searched and shown not in effect by their trial;
    a setting the campaign fixes is its own choice, exported unless inert)."""
    conf: Mapping[str, Any] | None = trialrecord.read_study(study).confirmation
    phases = measured_phases(rt.campaign.objective.metric, rt.campaign.app.pattern.phases)
    if conf is not None:
        kept = dict(conf.get("recommended") or {})
    elif trialrecord.read(best).is_default:
        kept = {}
    else:
        default = rt.space.default_config()
        kept = {k: v for k, v in rt.config_of(best).items() if default.get(k) != v}
    config, _ = acting({**rt.space.fixed, **kept}, phases, shown_not_in_effect(study, best) if kept else {}, kept)
    return config, not any(k in kept for k in config)

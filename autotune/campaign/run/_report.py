"""What a campaign prints at the end: the best configuration, the default's figure, the hints to paste."""

from __future__ import annotations

from typing import Any

import optuna

from autotune import trialrecord
from autotune.campaign.confirm import Confirmation, confirming_worker, recommended_config
from autotune.campaign.file import CostObjective
from autotune.campaign.study import (
    best_trial,
    counts,
    default_trial,
    first_flagged,
    front,
    implausible_trials,
    is_multi,
    rule_trials,
    value_of,
)
from autotune.campaign.trial import Runtime
from autotune.hints import Settings, render
from autotune.measure import NOT_VERIFIABLE, PROBLEMS, verdict_lines
from autotune.space import CATALOGUE
from autotune.units import format_duration, format_size


def fmt_value(name: str, value: Any) -> str:
    if name in CATALOGUE and CATALOGUE[name].kind == "size" and isinstance(value, int):
        return format_size(value)
    return str(value)


def hints_text(rt: Runtime, settings: Settings) -> str:
    """The job-script lines for this system (``--format job``: #SBATCH/#DW directives first, the output directory's
    striping, the MPI's hints), and the h5py settings as a comment."""
    c = rt.campaign
    parts = [render("job", settings, mpi_flavour=c.system.mpi_flavour, patterns=c.app.hint_files)]
    if settings.hdf5_alignment and settings.hdf5_alignment > 1:
        parts.append(f"# h5py: h5py.File(..., alignment_threshold={settings.hdf5_alignment}, "
                     f"alignment_interval={settings.hdf5_alignment})")
    return "\n".join(p for p in parts if p)


def summary(rt: Runtime, study: optuna.Study) -> dict[str, Any]:
    """Figures of the campaign as it stands in the storage (the source of truth)."""
    c = rt.campaign
    n = counts(study)  # aggregate queries: the summary of a 100,000-trial study reads a handful of trials
    best = best_trial(study, c.objective.cost)
    default = default_trial(study)
    out: dict[str, Any] = {
        "trials_run": n.ran_complete + n.ran_failed, "trials_failed": n.ran_failed,
        "metric": c.objective.metric, "direction": c.objective.direction, "time_spent_s": n.time_spent_s,
    }
    if best is not None:
        is_def = trialrecord.read(best).is_default
        config = rt.config_of(best)
        export, export_default = recommended_config(rt, study, best)  # only settings that differ and matter
        settings = rt.settings_for(export, export_default)
        out.update(best_trial=best.number, best_value=value_of(best), best_config=config, best_is_default=is_def,
                   best_repetitions=trialrecord.read(best).repetitions, hints_text=hints_text(rt, settings),
                   recommended_config=export, recommended_is_default=export_default,
                   best_hints_took_effect=trialrecord.read(best).hints_took_effect,  # None: not verifiable
                   best_verification=trialrecord.read(best).verification)
        conf = trialrecord.read_study(study).confirmation
        if conf:
            out["confirmation"] = conf
            shown = winner_of(conf)
            if shown is not None:  # the confirmed winner, which need not be the search's best of N
                out.update(shown_trial=shown[0], shown_config=shown[1])
                rec = trialrecord.read(study.get_trials(deepcopy=False)[shown[0]])  # its own runs' verdicts
                out.update(shown_hints_took_effect=rec.hints_took_effect, shown_verification=rec.verification)
            out["claim"] = Confirmation(**conf).claim()  # the gain over the default and over the best rule of thumb
        if (worker := confirming_worker(study)) is not None and worker != rt.worker:
            out["confirmation_running"] = worker  # a shared campaign's confirmation, run by another worker
    bv, dv = (value_of(best) if best is not None else None), (value_of(default) if default is not None else None)
    if dv is not None:
        out["default_value"] = dv
        if bv:
            out["speedup_over_default"] = bv / dv if c.objective.maximize else dv / bv
    rules = rule_trials(study)
    if rules and not is_multi(study):  # the best rule of thumb as the search measured it (the confirmation re-measures)
        r = (max if c.objective.maximize else min)(rules, key=lambda t: float(value_of(t) or 0.0))
        rv = value_of(r)
        out.update(rule_trial=r.number, rule_name=trialrecord.read(r).rule_of_thumb, rule_value=rv)
        if dv and rv:
            out["rule_speedup_over_default"] = rv / dv if c.objective.maximize else dv / rv
    baseline = first_flagged(study, trialrecord.BASELINE, ran=False)
    base_v = value_of(baseline) if baseline is not None else None
    if bv and base_v:
        out["baseline_value"] = base_v   # `baseline:` — the app's own settings
        out["speedup_over_baseline"] = bv / base_v if c.objective.maximize else base_v / bv
    if c.objective.cost is not None:
        out.update(cost_summary(study, c.objective.cost, best))
    flagged = {} if is_multi(study) else implausible_trials(study)
    if flagged:
        out["implausible"] = {str(k): v for k, v in sorted(flagged.items())}
    return out


def winner_of(conf: dict[str, Any]) -> tuple[int, dict[str, Any]] | None:
    """(trial, configuration) of the confirmation's winner, or None when the default won."""
    label = (conf.get("rule") or {}).get("label") if conf.get("recommends_rule") else conf.get("winner")
    cand = next((c for c in conf.get("candidates") or [] if c.get("label") == label), None)
    if cand is None or (conf.get("winner") == "default" and not conf.get("recommends_rule")) or cand.get("trial", -1) < 0:
        return None
    return int(cand["trial"]), dict(cand.get("config") or {})


def confirmation_lines(conf: dict[str, Any], metric: str) -> list[str]:
    """What a stored confirmation measured and recommends, as the summary prints it (the report reuses it)."""
    c = Confirmation(**conf)
    return [*c.lines(metric), c.claim()]


def times(x: float) -> str:
    """A ratio as ``N.NNx`` (``1.2e+300x`` when huge: never a 300-digit number)."""
    return f"{x:.2f}x" if abs(x) < 1e6 else f"{x:.3g}x"


def cost_summary(study: optuna.Study, rule: CostObjective, best: optuna.trial.FrozenTrial | None) -> dict[str, Any]:
    """With ``objective.cost``: the rule, the Pareto front at its exchange rate and the recommended trial's cost."""
    x = rule.exchange_rate
    out: dict[str, Any] = {"cost_rule": rule.describe(), "exchange_rate": x, "cost_unit": rule.unit,
                           "pareto_front": [{"trial": p.number, "value": p.value, "seconds": p.parts.seconds,
                                             "cost": p.cost(x), "node_hours": p.parts.node_hours,
                                             "bb_node_hours": p.parts.bb_node_hours, "bb_nodes": p.parts.bb_nodes}
                                            for p in front(study, rule)]}
    parts = trialrecord.read(best).cost if best is not None else None
    if isinstance(parts, dict):
        cost = float(parts["node_hours"]) + x * float(parts["bb_node_hours"])
        out.update(best_cost=cost, best_node_hours=parts["node_hours"], best_bb_node_hours=parts["bb_node_hours"],
                   best_charge=rule.charge(float(parts["node_hours"]), float(parts["bb_node_hours"])))
    return out


def cost_lines(s: dict[str, Any]) -> list[str]:
    """The cost side of a two-objective summary: the recommended trial's cost, the rule, the front."""
    out = []
    if "best_cost" in s:
        charge = f"; the site charges {s['best_charge']:.4g} {s['cost_unit']} at its profile's rates"
        out.append(f"  cost per run: {s['best_cost']:.4g} node-hours ({s['best_node_hours']:.4g} node-hours + "
                   f"{s['best_bb_node_hours']:.4g} BB node-hours){charge}")
    out.append(f"  chosen as {s['cost_rule']}")
    out.append(f"  Pareto front ({len(s['pareto_front'])} trials, cheapest first):")
    out += [f"    trial {p['trial']:3d}: " + (f"{s['metric']} {p['value']:.4g}, " if p["value"] != p["seconds"] else "")
            + f"{p['seconds']:.4g} s of I/O, {p['cost']:.4g} node-hours"
            + (f", {p['bb_nodes']} BB nodes" if p["bb_nodes"] else "") for p in s["pareto_front"]]
    return out


def summary_text(rt: Runtime, study: optuna.Study) -> str:
    s = summary(rt, study)
    c = rt.campaign
    unit = f" {c.objective.unit}" if c.objective.unit else ""  # canonical: values are converted to it
    lines = [f"campaign {c.name}: {s['trials_run']} trials run ({s['trials_failed']} failed), "
             f"{format_duration(s['time_spent_s'])} of runs, {c.objective.aggregate} of {c.objective.repeats}"]
    lines += [f"not plausible, never recommended: trial {k}: {why}" for k, why in s.get("implausible", {}).items()]
    if "best_value" not in s:
        lines.append("no plausible trial: every completed trial's value is flagged above" if s.get("implausible")
                     else "no trial has completed yet")
        return "\n".join(lines)
    confirmed = "confirmation" in s
    word = "recommended (cheapest at the exchange rate)" if "cost_rule" in s else "best of the search"
    lines.append(f"{word}: trial {s['best_trial']}, {c.objective.metric} = {s['best_value']:.4g}{unit}"
                 + (" (the default configuration)" if s["best_is_default"] else "")
                 + (f" ({c.objective.aggregate} of {c.objective.repeats}: overstated, see the confirmation)"
                    if confirmed and c.objective.repeats > 1 and c.objective.aggregate == "best" else ""))
    if "cost_rule" in s:
        lines += cost_lines(s)
    reps = ", ".join(f"{v:.4g}" if v is not None else "failed" for v in s["best_repetitions"] or [])
    lines.append(f"  repetitions: {reps}")
    if "default_value" in s:
        lines.append(f"default: {s['default_value']:.4g}{unit}  ->  {times(s.get('speedup_over_default', 1.0))} the default")
    if "rule_value" in s:
        vs = f"  ->  {times(s['rule_speedup_over_default'])} the default" if "rule_speedup_over_default" in s else ""
        lines.append(f"best rule of thumb: {s['rule_name']} (trial {s['rule_trial']}): {s['rule_value']:.4g}{unit}{vs}"
                     + ("" if confirmed else " (the search's figure, unconfirmed)"))
    if "baseline_value" in s:
        lines.append(f"baseline (the app's own settings): {s['baseline_value']:.4g}{unit}  ->  "
                     f"{times(s['speedup_over_baseline'])} the baseline")
    rule_won = bool(s.get("confirmation", {}).get("recommends_rule"))
    if s.get("shown_trial", s["best_trial"]) != s["best_trial"] or rule_won:
        what = "the recommended rule of thumb" if rule_won else "the confirmed winner"
        lines.append(f"configuration of trial {s['shown_trial']}, {what}" + (
            f" (the search's best of N was trial {s['best_trial']}):" if s["shown_trial"] != s["best_trial"] else ":"))
    elif confirmed and "shown_trial" not in s:  # the confirmation kept the defaults: this is not a recommendation
        lines.append(f"configuration of trial {s['best_trial']} (the search's best of N; the confirmation did not "
                     "show it better than the default):")
    else:
        lines.append(f"configuration of trial {s['best_trial']}:")
    for k, v in sorted(s.get("shown_config", s["best_config"]).items()):
        lines.append(f"  {k} = {fmt_value(k, v)}")
    shown = "shown" if "shown_trial" in s else "best"  # the verdicts of the trial whose configuration is shown
    verification, number = s.get(f"{shown}_verification") or {}, s[f"{shown}_trial"]
    if s[f"{shown}_hints_took_effect"] is False:
        lines.append(f"  WARNING: settings of trial {number} that did not reach the program or did not act:")
        lines += verdict_lines(verification, PROBLEMS, "    ") or ["    (no per-setting record in this trial)"]
    unverified = verdict_lines(verification, (NOT_VERIFIABLE,), "    ")
    if unverified:
        lines += [f"  settings of trial {number} that could not be verified:", *unverified]
    conf = Confirmation(**s["confirmation"]) if confirmed else None
    if conf is not None:
        lines += conf.lines(c.objective.metric)
        lines.append(conf.claim())
    if "confirmation_running" in s:
        lines.append(f"confirmation: worker {s['confirmation_running']} is running it; its result lands in the "
                     "study (`autotune status` shows it then)")
    rec = {k: v for k, v in s["recommended_config"].items() if k not in rt.space.fixed}
    if conf is not None and rec and conf.recommends_rule and conf.rule is not None:
        lines.append(f"recommended settings: the rule of thumb {conf.rule['name']}, as its source gives them (the "
                     "recommendation above says why):")
        lines += [f"  {k} = {fmt_value(k, v)}" for k, v in sorted(rec.items())]
    elif conf is not None and rec:  # what the ablation showed of each, not a claim beyond it
        lines.append("recommended settings (differ from the default; what the ablation showed of each):")
        lines += [f"  {k} = {fmt_value(k, v)}  ({conf.setting_note(k)})" for k, v in sorted(rec.items())]
    else:
        lines.append("recommended settings (differ from the default; not confirmed: no ablation):" if rec
                     else "recommended settings: the system's defaults")
        lines += [f"  {k} = {fmt_value(k, v)}" for k, v in sorted(rec.items())]
    fixed = {k: v for k, v in s["recommended_config"].items() if k in rt.space.fixed}
    if fixed:  # applied in every trial, the default's included: `export` prints them too
        lines.append("fixed by the campaign (in every trial, exported too):")
        lines += [f"  {k} = {fmt_value(k, v)}" for k, v in sorted(fixed.items())]
    lines.append("hints to paste into your job script:")
    text = s["hints_text"] if not s["recommended_is_default"] or fixed else "# the system's defaults are best: set nothing"
    lines += [f"  {ln}" for ln in text.splitlines()]
    return "\n".join(lines)

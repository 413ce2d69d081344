"""What ``autotune status``, ``export`` and ``space`` print: the study's counts and summary, the trials table, the
exported recommendation's claim, the search space with its rules of thumb. They read; they run nothing."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import optuna
from optuna.trial import TrialState

from autotune import trialrecord
from autotune.campaign.run._preflight import pending_lines
from autotune.campaign.run._report import confirmation_lines, summary_text
from autotune.campaign.study import counts, recent, trials_in
from autotune.campaign.trial import Runtime
from autotune.measure import verdict_cell
from autotune.space import rules_of_thumb


def status_text(rt: Runtime, study: optuna.Study, *, trials_table: bool, all_trials: bool, table_rows: int) -> str:
    """``autotune status``: the study's counts, a Slurm job's wait, the summary and (``trials_table``) the last
    ``table_rows`` trials, or every one (``all_trials``). ``rt`` takes the repeats the campaign ran with."""
    c = rt.campaign
    repeats = trialrecord.read_study(study).repeats
    if repeats is not None:  # what the campaign ran with (tune --repeats)
        rt.campaign = c = c.with_overrides(objective=replace(c.objective, repeats=repeats))
    n = counts(study)  # aggregate queries: a status of a 100,000-trial study reads a handful of trials
    running = trials_in(study, (TrialState.RUNNING,))
    shown = ", ".join(str(t.number) for t in running[:20]) + (f", ... ({len(running) - 20} more)" if len(running) > 20 else "")
    out = [f"study {c.study} in {c.storage}",
           f"trials: {n.ran_complete + n.ran_failed} finished ({n.ran_complete} complete, {n.ran_failed} failed), "
           f"{len(running)} running" + (f" (trial {shown})" if running else "")
           + f", {n.states.get('WAITING', 0)} queued, {n.infeasible} broke a rule (not run"
           + (": " + ", ".join(f"{rule} {k}" for rule, k in sorted(n.rules.items())) if n.rules else "") + ")"
           + (f", {n.duplicates} repeated a completed configuration (not run)" if n.duplicates else "")
           + (f", {n.dropped} queued outside the space (dropped)" if n.dropped else "")]
    out += pending_lines(rt, [t.number for t in running])  # a job waiting in Slurm's queue, and why
    out.append(summary_text(rt, study))
    if trials_table:
        trials = study.get_trials(deepcopy=False) if all_trials else recent(study, table_rows, tuple(TrialState))
        if len(trials) < n.total:
            out.append(f"the last {len(trials)} of {n.total} trials (--all-trials lists every one):")
        out.append("hints: per setting, ok (verified in effect), NOT IN EFFECT, not passed (never reached the program), "
                   "unverified (nothing observable tells); `autotune status` prints the evidence for the best trial")
        out += [_trial_row(rt, t) for t in trials]
    return "\n".join(out)


def _trial_row(rt: Runtime, t: optuna.trial.FrozenTrial) -> str:
    """One row of the trials table: state, value (and cost), repetitions, configuration, each hint's verdict."""
    rec = trialrecord.read(t)
    if rec.infeasible:
        return f"{t.number:4d} not run: broke the rule(s) {', '.join(rec.infeasible)} {rt.config_of(t)}"
    reps = " ".join(f"{v:.4g}" if v is not None else "fail" for v in rec.repetitions)
    val = f"{t.values[0]:.4g}" if t.values else "-"
    cost = rec.cost or {}
    val += f" cost {cost['cost']:.4g}" if "cost" in cost else ""
    tag = " (default)" if rec.is_default else f" (rule of thumb {rec.rule_of_thumb})" if rec.rule_of_thumb else ""
    return (f"{t.number:4d} {t.state.name:8s} {val:>10s} [{reps}] {rt.config_of(t)}{tag}  hints: "
            f"{verdict_cell(rec.verification) if rec.verification else _mismatch_cell(rec.hints_not_in_effect)}")


def _mismatch_cell(mismatches: dict[str, Any]) -> str:
    """A trial recorded before per-setting verification: its mismatches only."""
    return "NOT IN EFFECT " + ",".join(sorted(mismatches)) if mismatches else "-"


def export_claim(study: optuna.Study) -> str:
    """The exported recommendation's confirmed gain over the default and over the best rule of thumb, or that it
    is unconfirmed (the search's best of N)."""
    conf = trialrecord.read_study(study).confirmation
    if not conf:
        return ("unconfirmed: the search's best trial (its best of N is overstated); `autotune tune` to the end of "
                "the budget runs the confirmation (objective.confirm)")
    return confirmation_lines(conf, "")[-1]


def space_text(rt: Runtime) -> str:
    """``autotune space``: the space's notices, its parameters, its rules, and the rules of thumb a campaign runs
    right after the default (each with the settings it changes and its source)."""
    out = [f"notice: {n}" for n in rt.space.notices]
    out.append("\n".join(rt.space.describe()))
    out.append("rules: " + ", ".join(r.name for r in rt.space.rules))
    thumbs, notes = rules_of_thumb(rt.space)  # what a campaign runs right after the default
    out.append("rules of thumb (run right after the default):" if thumbs
               else "rules of thumb: none differs from the default here")
    default = rt.space.default_config()
    for b in thumbs:
        changed = {k: v for k, v in b.config.items() if default.get(k) != v}
        out.append(f"  {b.name}: {', '.join(f'{k}={v}' for k, v in sorted(changed.items()))}  ({b.source})")
    out += [f"  note: {line}" for line in notes]
    return "\n".join(out)

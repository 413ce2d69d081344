"""The trial record's schema: one frozen dataclass field per trial or study attribute (key, type, meaning)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from autotune.errors import ConfigError

FORMAT_VERSION = 2
VERSION = "record_version"  # the key of the stamp, on trials and on studies


class RecordError(ConfigError):
    """A trial or study attribute with an unknown key or a value of the wrong type."""


def _doc(meaning: str) -> dict[str, str]:
    """A field's metadata: its meaning (what :func:`doc` returns)."""
    return {"doc": meaning}


@dataclass(frozen=True)
class TrialRecord:
    """What autotune records on one trial (the field name is the user attribute's key)."""

    record_version: int = field(default=1, metadata=_doc("format of this record (1: written before the stamp existed)"))
    # what the trial is
    ran: bool = field(default=False, metadata=_doc(
        "really run: the budget counts it (a rule-breaker, a duplicate or an interrupted run did not)"))
    is_default: bool = field(default=False, metadata=_doc("the system's default configuration (the reference of every gain)"))
    baseline: bool = field(default=False, metadata=_doc("the application's own settings (campaign ``baseline``)"))
    initial: bool = field(default=False, metadata=_doc("queued by the warm or model-informed start"))
    rule_of_thumb: str = field(default="", metadata=_doc(
        "the rule(s) of thumb whose configuration it runs (queued after the default; names joined by ' = ')"))
    retry_of: int | None = field(default=None, metadata=_doc("the trial this one runs again (an interrupted or lost run)"))
    warm_start_of: int | None = field(default=None, metadata=_doc("the trial of the earlier study this one was copied from"))
    proposed_by: str = field(default="", metadata=_doc(
        "who proposed it in the in-loop model sampler: 'model' or the base sampler's name"))
    # why it did not run, or not to the end
    infeasible: list[str] = field(default_factory=list, metadata=_doc(
        "the rules its configuration broke (told the worst value, never run)"))
    duplicate_of: int | None = field(default=None, metadata=_doc("the completed trial whose configuration it repeats (not run)"))
    duplicate_default: bool = field(default=False, metadata=_doc(
        "a second default enqueued by a concurrent worker (failed, not run)"))
    dropped: str = field(default="", metadata=_doc("why a queued trial was dropped on resume (outside the current space)"))
    interrupted: bool = field(default=False, metadata=_doc(
        "stopped by the user or a killed campaign; its configuration runs again"))
    error: str | None = field(default=None, metadata=_doc("one line: why the trial failed"))
    rejected_by: str = field(default="", metadata=_doc("why the service's exploration policy rejected the proposal"))
    # who ran it
    worker: str = field(default="", metadata=_doc("the worker that claimed it ('service' for a production job's trial)"))
    service: str = field(default="", metadata=_doc("a production job's trial: 'explore', 'best' or 'default'"))
    service_token_sha256: str = field(default="", metadata=_doc(
        "SHA-256 of the token only the asking job holds (tell checks it)"))
    owner: str = field(default="", metadata=_doc("the user whose job asked"))
    job_id: str = field(default="", metadata=_doc("the batch job that asked"))
    host: str = field(default="", metadata=_doc("the host the job asked from"))
    asked_at: float | None = field(default=None, metadata=_doc("POSIX time of the ask"))
    expires_at: float | None = field(default=None, metadata=_doc("POSIX time after which an untold production trial fails"))
    told_at: float | None = field(default=None, metadata=_doc("POSIX time of the tell"))
    exit_status: int | None = field(default=None, metadata=_doc("the production job's exit status (tell --exit-status)"))
    # what it measured
    config: dict[str, Any] | None = field(default=None, metadata=_doc(
        "the configuration as the campaign names it (setting -> value)"))
    repetitions: list[float | None] = field(default_factory=list, metadata=_doc(
        "the metric of each repetition (None: that repetition failed)"))
    repetition_errors: list[str | None] = field(default_factory=list, metadata=_doc(
        "one line per failed repetition (None: it succeeded)"))
    failed_repetitions: int = field(default=0, metadata=_doc("how many repetitions failed"))
    spread: float | None = field(default=None, metadata=_doc("relative spread (max - min) / max of the successful repetitions"))
    duration_s: float = field(default=0.0, metadata=_doc("wall seconds the trial took, all repetitions"))
    run_info: list[dict[str, Any]] = field(default_factory=list, metadata=_doc(
        "per repetition: what the launcher reported (wall_s, job id, ...)"))
    metrics: list[dict[str, float]] = field(default_factory=list, metadata=_doc("per repetition: every metric extracted"))
    cost: dict[str, Any] | None = field(default=None, metadata=_doc("the trial's cost parts and its cost at the campaign's rate"))
    command: str = field(default="", metadata=_doc("the command line of its first repetition"))
    stderr_tail: str = field(default="", metadata=_doc("the end of the last repetition's standard error"))
    # the hints it set, and whether they took effect
    hints: dict[str, str] = field(default_factory=dict, metadata=_doc("the MPI-IO hints and file-system settings it applied"))
    hints_in_effect: dict[str, Any] = field(default_factory=dict, metadata=_doc("the hints the run reported in effect"))
    hints_not_in_effect: dict[str, Any] = field(default_factory=dict, metadata=_doc(
        "the hints set but not in effect (ignored by the library)"))
    verification: dict[str, Any] = field(default_factory=dict, metadata=_doc(
        "per setting: how its effect was verified and the verdict"))
    hints_took_effect: bool | None = field(default=True, metadata=_doc("every setting took effect (None: not verifiable)"))
    # the in-loop model sampler's state when the trial was proposed
    model_constants: dict[str, float] = field(default_factory=dict, metadata=_doc("the model's constants in force"))
    model_moved: dict[str, float] = field(default_factory=dict, metadata=_doc(
        "the constants that moved from their start (relative change)"))
    model_fitted_on: int | None = field(default=None, metadata=_doc("completed trials of the model's last refit"))
    model_rho: float | None = field(default=None, metadata=_doc("rank correlation of model and measurements"))
    model_share: float | None = field(default=None, metadata=_doc("share of proposals the model makes"))


@dataclass(frozen=True)
class StudyRecord:
    """What autotune records on a study: what it measures (set up by the campaign) and what it concluded."""

    record_version: int = field(default=1, metadata=_doc("format of this record (1: written before the stamp existed)"))
    system: str | None = field(default=None, metadata=_doc("the system profile's name"))
    filesystem: str | None = field(default=None, metadata=_doc("the target file system's name"))
    fs_kind: str | None = field(default=None, metadata=_doc("the target file system's kind"))
    app: str | None = field(default=None, metadata=_doc("the application's name"))
    space: str | None = field(default=None, metadata=_doc("the search space's name"))
    launcher: str | None = field(default=None, metadata=_doc("the launcher's name"))
    metric: str | None = field(default=None, metadata=_doc("the objective's metric"))
    direction: str | None = field(default=None, metadata=_doc("'maximize' or 'minimize'"))
    repeats: int | None = field(default=None, metadata=_doc("repetitions per trial the campaign ran with"))
    pattern: dict[str, Any] | None = field(default=None, metadata=_doc(
        "the application's I/O pattern (hints finds the nearest one)"))
    fixed: dict[str, Any] | None = field(default=None, metadata=_doc(
        "the settings the space fixes (hints renders them without the campaign)"))
    metric_kind: str | None = field(default=None, metadata=_doc("what the metric measures ('bandwidth', 'time', ...)"))
    plausible_max: float | None = field(default=None, metadata=_doc(
        "the model's ceiling of the target in MiB/s (None: no bound known)"))
    space_searched: dict[str, Any] | None = field(default=None, metadata=_doc(
        "{optuna name: distribution JSON} of the space last searched"))
    cost: dict[str, Any] | None = field(default=None, metadata=_doc("the cost rule the study's costs were computed with"))
    confirmation: dict[str, Any] | None = field(default=None, metadata=_doc(
        "the confirmation of the best trial against the default"))
    confirmation_claim: dict[str, Any] | None = field(default=None, metadata=_doc(
        "the worker that runs (or ran) the confirmation: {worker: 'host:pid', beat: POSIX time of its last "
        "heartbeat, trials: how many it confirms, key: digest of their numbers, finished: bool}"))
    recommended: dict[str, Any] | None = field(default=None, metadata=_doc(
        "the trial re-measurement recommends, with its values"))
    best_record: dict[str, Any] | None = field(default=None, metadata=_doc(
        "the service's incremental best-trial record: best and default trial up to a watermark, and the median"))


# the keys the bounded SQL reads of a study name (campaign.trials_in, counts, ...)
RAN, IS_DEFAULT, BASELINE, DURATION_S = "ran", "is_default", "baseline", "duration_s"
INFEASIBLE, DUPLICATE_OF, DROPPED = "infeasible", "duplicate_of", "dropped"
PROPOSED_BY = "proposed_by"


def doc(cls: type, key: str) -> str:
    """The meaning of attribute ``key`` of ``TrialRecord`` or ``StudyRecord``."""
    return str(next(f.metadata["doc"] for f in fields(cls) if f.name == key))

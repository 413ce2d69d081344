"""Production runs as trials: ``ask`` hands a job its configuration, ``tell`` records what the job measured.

A production trial is an ordinary trial of the campaign's study (so dedicated campaign trials and
production trials share one study), marked ``service`` (``best``, ``default`` or ``explore``) with the
job id, the owner, and the SHA-256 of a random token only the asking job knows: ``tell`` must present that
token, so nobody else can tell (or overwrite) the trial. A trial nobody tells expires at ``expires_at``
and is failed by the next ``ask``/``tell`` instead of staying RUNNING forever.
"""

from __future__ import annotations

import getpass
import hashlib
import hmac
import random
import re
import secrets
import socket
import time
from dataclasses import dataclass, field
from typing import Any

import optuna
from optuna.trial import FrozenTrial, TrialState

from autotune import trialrecord
from autotune.campaign import best_trial, rdb, recent, trials_in
from autotune.errors import ConfigError
from autotune.measure import refuse_told
from autotune.optimize import make_sampler
from autotune.service._bestrecord import settled
from autotune.service._policy import Policy, explore, measured, sandbox
from autotune.space import Config

TRIAL_RE = re.compile(r"(?P<study>[A-Za-z0-9._-]{1,128}):(?P<number>\d{1,9}):(?P<token>[0-9a-f]{32})")


@dataclass
class Assignment:
    """What a job runs: ``source`` is best | default | explore | fallback-cache | fallback-default."""

    study: str
    config: Config
    source: str
    number: int | None = None
    token: str | None = None
    is_default: bool = False
    asked_at: float = field(default_factory=time.time)
    note: str = ""

    @property
    def ref(self) -> str:
        """The value of ``AUTOTUNE_TRIAL`` (empty for a fallback: nothing to tell)."""
        return f"{self.study}:{self.number}:{self.token}" if self.number is not None and self.token else ""


def _sha(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


ABANDONED_S = 120.0  # a trial nobody claimed this long after it was asked was left by a job that gave up


WINDOW = 500  # the recent finished trials the exploration policy and the sampler consult (bounded cost)


def expire_stale(study: optuna.Study, now: float | None = None) -> list[int]:
    """Fail the production trials whose job never told before ``expires_at``, and trials nobody claimed
    (no ``worker``) ``ABANDONED_S`` after they started: a job that gave up waiting for the store mid-ask."""
    now = time.time() if now is None else now
    expired = []
    db = rdb(study)  # the running trials are above the recorded watermark: a bounded read of the newest ids
    running = (db._get_trials(study._study_id, (TrialState.RUNNING,), set(), settled(study)) if db is not None
               else trials_in(study, (TrialState.RUNNING,)))
    for t in running:
        rec = trialrecord.read(t)
        started = t.datetime_start.timestamp() if t.datetime_start else now
        why = ""
        if rec.service and rec.expires_at is not None and rec.expires_at < now:
            why = "expired: the job never told its result"
        elif not rec.worker and now - started > ABANDONED_S:
            why = "abandoned: asked, but never claimed by a job or a campaign worker"
        if why:
            try:
                trialrecord.write_stored(study._storage, t._trial_id, error=why)
                study.tell(t.number, state=TrialState.FAIL)
            except (RuntimeError, ValueError):  # another ask/tell expired it a moment earlier
                continue
            expired.append(t.number)
    return expired


def _create(study: optuna.Study, params: dict[str, Any], distributions: dict[str, Any], attrs: dict[str, Any],
            system_attrs: dict[str, Any] | None = None) -> FrozenTrial:
    """A new RUNNING trial born with its configuration and its owner's attributes, in one insert.

    Never through Optuna's queue (``enqueue_trial`` then ``ask``): ``ask`` pops the first WAITING trial,
    and on SQLite (no row locks: ``SELECT ... FOR UPDATE`` is a no-op) two processes can both see it
    WAITING and both take it; a job could also take another job's (or the campaign's) queued trial.
    A trial created RUNNING belongs to its creator from its first moment, on every storage."""
    template = optuna.trial.create_trial(state=TrialState.RUNNING, params=params, distributions=distributions,
                                         user_attrs=attrs, system_attrs=system_attrs or {})
    return study._storage.get_trial(study._storage.create_new_trial(study._study_id, template_trial=template))


def ask(rt: Any, study: optuna.Study, policy: Policy, *, job_id: str = "", expire_s: float = 86400.0,
        rng: random.Random | None = None, best: FrozenTrial | None = None) -> Assignment:
    """Create the job's trial (RUNNING) and return its configuration; ``rt`` is the campaign's Runtime,
    ``best`` the study's best trial when the caller has read it already."""
    c = rt.campaign
    rng = rng or random.Random()
    expire_stale(study)
    best = best if best is not None else best_trial(study)
    best_cfg = rt.config_of(best) if best is not None else rt.space.default_config()
    if best is not None and rt.space.refusal(best_cfg) is not None:  # a store's values are checked like a user's
        best, best_cfg = None, rt.space.default_config()
    token = secrets.token_hex(16)
    now = time.time()
    attrs = {"worker": "service", "service": "explore", "service_token_sha256": _sha(token), "owner": getpass.getuser(),
             "job_id": job_id, "host": socket.gethostname(), "asked_at": now, "expires_at": now + expire_s}
    frozen = None
    if best is not None and policy.wants_exploration(rng):
        # every job is a new process: a sampler seeded as the campaign says would propose the same first
        # configuration to every job; the job's own draw seeds it instead (``--seed`` keeps tests exact)
        sampler = make_sampler({**c.sampler, "seed": rng.getrandbits(31)}, rt.space)
        window = recent(study, WINDOW, (TrialState.COMPLETE, TrialState.PRUNED))
        history = measured(window, c.objective.maximize, rt.config_of)
        box = sandbox(study, window, sampler)
        trial, rejected = explore(box, rt.space, best_cfg, c.objective.metric, c.objective.maximize, policy, history)
        for r in rejected:  # the record of what was judged and why (the next job's sampler moves on)
            study.add_trial(r)
        if trial is not None:
            t = box._storage.get_trial(trial._trial_id)
            frozen = _create(study, t.params, t.distributions, trialrecord.attrs(t, **attrs), t.system_attrs)
    if frozen is None:
        attrs["service"] = "best" if best is not None else "default"
        try:
            frozen = _create(study, rt.space.to_optuna(best_cfg), rt.space.distributions(),
                             trialrecord.attrs(is_default=best is None, **attrs))
        except ValueError:  # the best was measured in a wider space than the campaign's now: the defaults
            attrs["service"] = "default"
            frozen = _create(study, rt.space.to_optuna(rt.space.default_config()), rt.space.distributions(),
                             trialrecord.attrs(is_default=True, **attrs))
    return Assignment(c.study, rt.config_of(frozen), str(attrs["service"]), frozen.number, token,
                      trialrecord.read(frozen).is_default, now)


def parse_ref(ref: str, where: str = "AUTOTUNE_TRIAL") -> tuple[str, int, str]:
    """STUDY:NUMBER:TOKEN as ``ask`` prints it; ``where`` names the source (the variable, or ``--trial``)."""
    m = TRIAL_RE.fullmatch(ref.strip())
    if not m:
        raise ConfigError(f"{where}: {ref!r} is not STUDY:NUMBER:TOKEN as printed by `autotune ask`")
    return m["study"], int(m["number"]), m["token"]


def tell(study: optuna.Study, ref: str, *, value: float | None = None, failure: str | None = None,
         extra: dict[str, Any] | None = None) -> optuna.trial.FrozenTrial:
    """Record a production job's result on the trial ``ref`` names; the token must match."""
    name, number, token = parse_ref(ref)
    if name != study.study_name:
        raise ConfigError(f"AUTOTUNE_TRIAL: trial of study {name!r}, but this is study {study.study_name!r}")
    if value is not None:  # the rule a run's value obeys (measure.value_problem), and > 0
        kind = trialrecord.read_study(study).metric_kind
        refuse_told(value, kind if isinstance(kind, str) else None)
    expire_stale(study)
    try:
        tid = study._storage.get_trial_id_from_study_id_trial_number(study._study_id, number)
    except KeyError:
        raise ConfigError(f"AUTOTUNE_TRIAL: study {name!r} has no trial {number}") from None
    t = study._storage.get_trial(tid)
    if not hmac.compare_digest(trialrecord.read(t).service_token_sha256, _sha(token)):
        raise ConfigError(f"AUTOTUNE_TRIAL: the token does not match trial {number} of study {name!r} "
                          "(only the job that asked for it may tell it)")
    if t.state != TrialState.RUNNING:
        why = trialrecord.read(t).error or t.state.name
        raise ConfigError(f"AUTOTUNE_TRIAL: trial {number} of study {name!r} is already finished ({why}): not told again")
    trialrecord.write_stored(study._storage, tid, **{**(extra or {}), "told_at": time.time(), "ran": True,
                                                     "repetitions": [value] if value is not None else [None]})
    if failure is not None or value is None:
        trialrecord.write_stored(study._storage, tid, error=failure or "no metric")
        study.tell(number, state=TrialState.FAIL)
    else:
        study.tell(number, value)
    return study._storage.get_trial(tid)

"""``predict``: the noiseless, deterministic time of each phase of a pattern on a target."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from autotune.model._bounds import enforce
from autotune.model._constants import Constants, constants_for
from autotune.model._datawarp import datawarp_collective, datawarp_independent
from autotune.model._lustre import lustre_collective, lustre_independent
from autotune.model._mpiio import calls_of
from autotune.model._nearnode import near_metadata, near_phase
from autotune.model._posix import collective_op, posix_collective, posix_independent
from autotune.model._prediction import Limit, PhasePrediction, Prediction, Term
from autotune.model._settings import Resolved, settings_in_effect
from autotune.pattern import IOPattern
from autotune.systems import FileSystem, SystemProfile
from autotune.tiers import DATAWARP, LUSTRE, POSIX


def metadata_term(p: IOPattern, c: Constants, fs: FileSystem, op: str, r: Resolved | None = None) -> Term:
    """Creates and opens through one metadata server: grows with the file count (ALCF Theta I/O talk; NERSC Cori I/O talk)."""
    files = p.ranks if p.file_mode == "fpp" else p.files
    opens = p.ranks * (1 if p.file_mode == "fpp" else p.files)
    if fs.tier is DATAWARP:  # striped: one DW node serves the metadata (NERSC Cori I/O talk); private: each namespace its own
        create_rate = open_rate = c.bb_mds_rate * (max(1, r.bb_physical) if r is not None and r.bb_private else 1)
    elif fs.tier is LUSTRE:
        create_rate, open_rate = c.mds_create_rate, c.mds_open_rate
    else:
        create_rate = open_rate = 1.0 / c.posix_latency
    creates = files if op == "write" else 0
    secs = creates / create_rate + opens / open_rate
    return Term("open/create", "metadata", secs, f"{creates} create(s), {opens} open(s)")


def _phase(p: IOPattern, r: Resolved, c: Constants, fs: FileSystem, op: str,
           cores: int) -> tuple[list[Term], list[Limit]]:
    cb = r.cb_write if op == "write" else r.cb_read
    if fs.tier.near_node:
        return near_phase(p, c, fs, op, r.rabbit_type or None)
    if fs.tier is POSIX:
        return posix_collective(p, r, c, cores, op) if cb else posix_independent(p, r, c, cores, op)
    if fs.tier is LUSTRE:
        return lustre_collective(p, r, c, fs, op) if cb else lustre_independent(p, r, c, fs, op)
    return datawarp_collective(p, r, c, fs, op) if cb else datawarp_independent(p, r, c, fs, op)


def predict(pattern: IOPattern, system: SystemProfile, filesystem: str | None = None,
            config: Mapping[str, Any] | None = None, *, constants: Constants | None = None) -> Prediction:
    """Time and bandwidth of each phase of ``pattern`` on ``filesystem`` of ``system`` with ``config``.

    ``config`` holds namespaced parameters (``lustre.stripe_count``, ``mpiio.cb_nodes``, ...); a
    missing one means the system's default behaviour. ``constants`` overrides the profile's model
    constants (used by the fit). Raises ``ConfigError`` for a configuration the target rejects (a
    burst-buffer allocation smaller than the data).
    """
    cfg = dict(config or {})
    fs = system.filesystem(filesystem)
    c = constants if constants is not None else constants_for(system, fs)
    r, eff = settings_in_effect(cfg, system, fs, pattern, c)
    phases = []
    for op in pattern.phases:
        terms, limits = _phase(pattern, r, c, fs, op, system.cores_per_node)
        if op == "write" and r.cb_fallback:
            calls = calls_of(pattern)[0]
            terms.append(Term("collective sync", "collective sync",
                              calls * collective_op(pattern, c, system.cores_per_node),
                              "romio_cb_write=automatic: offsets exchanged per call, then independent writes"))
        terms, aggregate = enforce(pattern, r, c, fs, op, terms)
        terms.insert(0, near_metadata(pattern, c, fs, op, r.rabbit_type or None) if fs.tier.near_node
                     else metadata_term(pattern, c, fs, op, r))
        limits = [*limits, *(lim for lim in aggregate if lim not in limits)]
        phases.append(PhasePrediction(op, pattern.data_bytes, tuple(terms), tuple(limits)))
    notes: list[str] = []
    if cfg.get("cray.cb_write_lock_mode") in (1, "1") and not r.lock_shared:
        notes.append("cray_cb_write_lock_mode=1 not in effect: needs collective buffering, all-collective access"
                     " and romio_no_indep_rw=true")
    if r.bb_wrap > 1:
        notes.append(f"BB allocation wraps round-robin: {r.bb_wrap} grains on some nodes")
    return Prediction(tuple(phases), fs.name, fs.kind, r.aggregators, cfg, eff, tuple(notes))

"""``autotune hints``: the best known configuration for an application on a system, and where it came from."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import optuna
from optuna.trial import FrozenTrial

from autotune import trialrecord
from autotune.campaign import shown_not_in_effect
from autotune.hints import acting, measured_phases
from autotune.service._bestrecord import known

BOOTSTRAP = 2000


@dataclass
class KnownConfig:
    """A configuration with its provenance: the study and trial, when, and the measured gain over the default."""

    frozen: FrozenTrial
    study: str
    trial: int
    date: str
    match: str  # "exact", "same app", or "nearest pattern (distance d)"
    gain: float | None = None  # best / default (>1: better), from the medians of the repetitions
    interval: tuple[float, float] | None = None
    confirmation: dict[str, Any] | None = None  # the study's confirmation (campaign/confirm/_recommend.py), if it ran
    not_in_effect: dict[str, Any] | None = None  # what the recommended configuration's trial showed not in effect

    def config(self, rt: Any) -> dict[str, Any]:
        """The settings to hand out with campaign runtime ``rt``: the confirmed recommendation, else the best
        trial's settings that differ from the default and can act (what ``autotune export`` prints)."""
        c = rt.campaign
        rec = trialrecord.StudyRecord(fixed=dict(rt.space.fixed), metric=c.objective.metric,
                                      pattern={"phases": list(c.app.pattern.phases)}, confirmation=self.confirmation)
        return recommended(rec, self.frozen, rt.config_of(self.frozen), rt.space.default_config(), self.not_in_effect)

    def describe(self) -> str:
        c = self.confirmation
        if c is not None and isinstance(c.get("margin"), (int, float)):
            proven = c.get("winner") != "default" and float(c.get("low", 0.0)) > 0
            g = (f"confirmed {c['winner']}: {c['margin']:+.1%} over the default (95% interval {c['low']:+.1%} to "
                 f"{c['high']:+.1%})" + ("" if proven else "; not proven: the defaults"))
        else:
            g = f"{self.gain:.2f}x the default" if self.gain is not None else "gain over the default not measured"
            if self.interval is not None:
                g += f" (95% interval {self.interval[0]:.2f}-{self.interval[1]:.2f}x)"
            g += ", not confirmed (medians of the repetitions)"
        return f"from study {self.study!r} trial {self.trial} ({self.match}, {self.date}): {g}"


def recommended(study: trialrecord.StudyRecord, best: FrozenTrial, config: dict[str, Any], default: dict[str, Any],
                not_in_effect: dict[str, Any] | None = None) -> dict[str, Any]:
    """The settings a campaign recommends (``autotune export``'s ``recommended_config``): its confirmation's (changed
    settings that proved to matter), else the best trial's settings that differ from the default; either way
    only those that can act (``acting``: not inert, not shown ``not_in_effect`` by their trial)."""
    conf = study.confirmation
    if conf is not None:
        kept = dict(conf.get("recommended") or {})
    elif trialrecord.read(best).is_default:
        kept = {}
    else:
        kept = {k: v for k, v in config.items() if default.get(k) != v}
    phases = measured_phases(study.metric or "", (study.pattern or {}).get("phases") or ("write",))
    return acting({**dict(study.fixed or {}), **kept}, phases, not_in_effect if kept else {}, kept)[0]


def _reps(t: FrozenTrial) -> list[float]:
    vals = trialrecord.read(t).repetitions or (t.values[:1] if t.values else [])
    return [float(v) for v in vals if isinstance(v, (int, float)) and math.isfinite(v) and v > 0]


def gain(best: FrozenTrial, default: FrozenTrial | None, maximize: bool, seed: int = 0
         ) -> tuple[float | None, tuple[float, float] | None]:
    """Median-over-median gain (>1 is better) with a bootstrap interval when both have ≥2 repetitions."""
    if default is None:
        return None, None
    b, d = _reps(best), _reps(default)
    if not b or not d:
        return None, None

    def ratio(x: np.ndarray, y: np.ndarray) -> Any:
        return np.median(x, axis=-1) / np.median(y, axis=-1) if maximize else np.median(y, axis=-1) / np.median(x, axis=-1)

    point = float(ratio(np.array(b), np.array(d)))
    if len(b) < 2 or len(d) < 2:
        return point, None
    rng = np.random.default_rng(seed)
    bs = rng.choice(b, size=(BOOTSTRAP, len(b)))
    ds = rng.choice(d, size=(BOOTSTRAP, len(d)))
    lo, hi = np.percentile(ratio(bs, ds), [2.5, 97.5])
    return point, (float(lo), float(hi))


def pattern_distance(a: dict[str, Any], b: dict[str, Any]) -> float:
    """How far two recorded I/O patterns are: log-ratios of sizes and ranks, 1 per differing kind."""
    d = 0.0
    for key in ("bytes_per_rank", "transfer_size", "ranks"):
        x, y = a.get(key), b.get(key)
        d += abs(math.log2(x / y)) if isinstance(x, (int, float)) and isinstance(y, (int, float)) and x > 0 and y > 0 else 3.0
    for key in ("file_mode", "io_mode", "library", "layout"):
        d += 0.0 if a.get(key) == b.get(key) else 1.0
    return d


def best_known(storage: Any, study_name: str, app: str, system: str, pattern: dict[str, Any],
               space_name: str, feasible: Any) -> KnownConfig | None:
    """The exact study's best trial, else the best of the nearest recorded study on the same system and
    space (same app first, then the nearest pattern); None when nothing completed is known."""
    ranked: list[tuple[float, str, str]] = []
    for s in storage.get_all_studies():  # names and attributes only (study summaries read every trial)
        rec = trialrecord.read_study(s)
        if s.study_name == study_name:
            ranked.append((-1.0, s.study_name, "exact"))
        elif rec.system == system and rec.space == space_name:
            if rec.app == app:
                ranked.append((0.0, s.study_name, "same app"))
            elif rec.pattern is not None:
                dist = pattern_distance(pattern, rec.pattern)
                ranked.append((1.0 + dist, s.study_name, f"nearest pattern (distance {dist:.1f})"))
    for _, name, match in sorted(ranked):
        study = optuna.load_study(study_name=name, storage=storage)
        best, default = known(study)
        if best is None:
            continue
        if match != "exact" and not feasible(best):
            continue
        g, interval = gain(best, default, study.directions[0] == optuna.study.StudyDirection.MAXIMIZE)
        when = best.datetime_complete.strftime("%Y-%m-%d") if best.datetime_complete else "?"
        conf = trialrecord.read_study(study).confirmation
        return KnownConfig(best, name, best.number, when, match, g, interval, conf, shown_not_in_effect(study, best))
    return None

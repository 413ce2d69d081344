"""``autotune hints APP --system S --storage URL``: the best confirmed settings recorded for an application,
found by its name in a site store, without its campaign file (a job script of another user, a module)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import optuna

from autotune import trialrecord
from autotune.errors import ConfigError
from autotune.hints import Settings, resolve
from autotune.service._hints import KnownConfig, gain, recommended


@dataclass
class AppHints:
    """What to print: the settings, how to render them, and where they came from."""

    settings: Settings
    mpi_flavour: str
    known: KnownConfig
    others: list[str]  # the other systems the app has studies on (when --system was not given)
    system: str = ""  # the system of the study that answered


def app_hints(storage: Any, app: str, system: str | None) -> AppHints | None:
    """The most recently created study of ``app`` (on ``system`` if given) with a completed trial; None when
    nothing is recorded. A profile that is not shipped (a campaign's own file) is a ConfigError naming it."""
    from autotune.campaign import shown_not_in_effect
    from autotune.pattern import IOPattern
    from autotune.service._bestrecord import known as recorded
    from autotune.space import load_space
    from autotune.systems import load_system

    found: list[tuple[int, str]] = []
    systems: set[str] = set()
    for s in storage.get_all_studies():  # names and attributes only (study summaries read every trial)
        summary = trialrecord.read_study(s)
        if summary.app != app:
            continue
        systems.add(str(summary.system))
        if system is None or summary.system == system:
            found.append((s._study_id, s.study_name))  # ids grow with creation: the newest first
    for _, name in sorted(found, reverse=True):
        study = optuna.load_study(study_name=name, storage=storage)
        best, default = recorded(study)  # the study's best-trial record, caught up
        if best is None:
            continue
        rec = trialrecord.read_study(study)
        try:
            profile = load_system(str(rec.system))
        except ConfigError as exc:
            raise ConfigError(f"study {name!r}: system profile {rec.system!r} is not shipped ({exc}); "
                              "give the campaign file instead of the app name") from None
        fs = profile.filesystem(rec.filesystem)
        pattern = IOPattern.from_dict({k: v for k, v in (rec.pattern or {}).items()
                                       if k not in ("data_bytes", "ranks_per_node") and v is not None}, f"study {name!r} pattern")
        space = load_space(str(rec.space)).bind(profile, fs, pattern)
        unapplied = shown_not_in_effect(study, best)
        config = recommended(rec, best, space.from_optuna(best.params), space.default_config(), unapplied)
        g, interval = gain(best, default, study.direction == optuna.study.StudyDirection.MAXIMIZE)
        when = best.datetime_complete.strftime("%Y-%m-%d") if best.datetime_complete else "?"
        known = KnownConfig(best, name, best.number, when, f"app {app!r} on {profile.name}", g, interval, rec.confirmation,
                            unapplied)
        others = sorted(systems - {profile.name}) if system is None else []
        return AppHints(resolve(config, profile, fs, pattern), profile.mpi_flavour, known, others, profile.name)
    return None

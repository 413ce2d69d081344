"""``physical_ceiling``: the most any configuration can move per second on a target (a plausibility bound)."""

from __future__ import annotations

from autotune.errors import ConfigError
from autotune.model._bounds import aggregate_limits, cacheable
from autotune.model._constants import constants_for
from autotune.model._settings import settings_in_effect
from autotune.pattern import IOPattern
from autotune.systems import SystemProfile
from autotune.tiers import DATAWARP, LUSTRE


def physical_ceiling(pattern: IOPattern, system: SystemProfile, filesystem: str | None = None) -> float | None:
    """The largest aggregate bandwidth (bytes/s) of ``pattern``'s phases under the most generous settings
    (every OST, every BB node of the pool), or None where the model gives no bound: writes the client page
    cache may absorb (``pattern.sync`` false), or a target the model cannot price."""
    fs = system.filesystem(filesystem)
    c = constants_for(system, fs)
    config: dict[str, int] = {}
    if fs.tier is LUSTRE:
        config["lustre.stripe_count"] = fs.osts or 1
    elif fs.tier is DATAWARP:
        config["bb.nodes"] = max(p.nodes for p in fs.pools.values())
    try:
        r, _ = settings_in_effect(config, system, fs, pattern, c)
        best = 0.0
        for op in pattern.phases:
            if cacheable(pattern, r, c, fs, op) > 0:
                return None
            best = max(best, min(lim.bytes_per_s for lim in aggregate_limits(pattern, r, c, fs, op)))
    except (ConfigError, ValueError, ZeroDivisionError):
        return None
    return best or None

"""``target.bb.persistent`` in the campaign file: a DataWarp reservation every trial job uses, parsed and checked
against the launcher (the reservation's jobs and state are ``autotune.campaign.trial``'s and ``autotune.launch``'s)."""

from __future__ import annotations

from typing import Any

from autotune._yaml import check_keys
from autotune.errors import ConfigError
from autotune.launch import AppSpec, Persistent, parse_persistent
from autotune.systems import FileSystem


def parse_reservation(value: Any, fs: FileSystem, app: AppSpec, launcher: dict[str, Any]) -> Persistent | None:
    """``target.bb.persistent``: a DataWarp reservation every trial job uses (slurm job mode or the model)."""
    if value is None:
        return None
    bb = check_keys(value, {"persistent"}, "target.bb")
    if bb.get("persistent") is None:
        return None
    p = parse_persistent(bb["persistent"], fs, app.pattern.written_bytes)
    staged = [k for k in ("stage_in", "stage_out") if launcher.get(k)]
    if staged:  # KAUST Shaheen II training: a second job staging the same files into a persistent space fails
        raise ConfigError(f"launcher.{staged[0]}: not with target.bb.persistent (every trial job would stage into "
                          "the same reservation; staging the same files twice fails): stage once yourself")
    name, mode = str(launcher.get("name")), str(launcher.get("mode", "job"))
    if name not in ("slurm", "model") or (name == "slurm" and mode != "job"):
        raise ConfigError(f"target.bb.persistent: needs the slurm launcher in job mode (or the model), not {name!r}"
                          + (f" mode {mode!r}" if name == "slurm" else ""))
    return p

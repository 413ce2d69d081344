"""A campaign's persistent DataWarp reservation (``target.bb.persistent``), all in one place: parsed from the
campaign file, its size, pool and mode fixed for every trial, created before the first trial job (once: a resumed
campaign finds it), destroyed after the last unless kept or the campaign was interrupted (a resume needs it), and
its set-up and tear-down job scripts for ``tune --dry-run``. Only the Slurm launcher submits these jobs; on the
model nothing runs. The job scripts and the reservation's state file are ``autotune.launch``'s."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from autotune._yaml import check_keys
from autotune.errors import ConfigError
from autotune.launch import AppSpec, Persistent, fixed_parameters, parse_persistent, script, set_up, tear_down
from autotune.systems import FileSystem

if TYPE_CHECKING:
    from autotune.campaign.file._config import Campaign
    from autotune.campaign.trial._runtime import Runtime


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


def reservation_parameters(c: Campaign) -> dict[str, Any]:
    """The space's parameters the reservation fixes (its size, pool and striped mode); none without one."""
    return fixed_parameters(c.persistent) if c.persistent is not None else {}


def reservation_job(c: Campaign, action: str) -> str | None:
    """The set-up (``create``) or tear-down (``destroy``) job script; None when there is no such job (no
    reservation, one named as existing, or one kept at the end)."""
    p = c.persistent
    if p is None or (action == "create" and not p.create) or (action == "destroy" and p.keep):
        return None
    options = {k: v for k, v in c.launcher.items() if k != "name"}
    return script(p, action, c.study, c.system, options, c.workdir / "bb-persistent")


def _options(rt: Runtime) -> dict[str, object] | None:
    c = rt.campaign
    if c.persistent is None or str(c.launcher.get("name")) != "slurm":
        return None
    return {k: v for k, v in c.launcher.items() if k != "name"}


def reserve(rt: Runtime, say: Callable[[str], None]) -> None:
    """Create the reservation unless it exists (state file) or is named as existing."""
    options = _options(rt)
    c = rt.campaign
    if options is not None and c.persistent is not None:
        say(set_up(c.persistent, c.study, c.system, options, c.workdir))


def release(rt: Runtime, say: Callable[[str], None], stopped: str) -> None:
    """Destroy the reservation at the end (kept when asked, or when the campaign was interrupted)."""
    options = _options(rt)
    c = rt.campaign
    if options is None or c.persistent is None:
        return
    if stopped == "interrupted":
        say(f"persistent reservation {c.persistent.name}: kept for the resumed campaign (interrupted)")
        return
    say(tear_down(c.persistent, c.study, c.system, options, c.workdir))

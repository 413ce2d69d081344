"""A campaign's persistent DataWarp reservation (``target.bb.persistent``, parsed in ``campaign.file``): its
size, pool and mode fixed for every trial, created before the first trial job (once: a resumed campaign finds
it), destroyed after the last unless kept or the campaign was interrupted (a resume needs it), and its set-up and
tear-down job scripts for ``tune --dry-run``. Only the Slurm launcher submits these jobs; on the model nothing
runs. The job scripts and the reservation's state file are ``autotune.launch``'s."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from autotune.campaign.file import Campaign
from autotune.launch import fixed_parameters, script, set_up, tear_down


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


def _options(c: Campaign) -> dict[str, object] | None:
    if c.persistent is None or str(c.launcher.get("name")) != "slurm":
        return None
    return {k: v for k, v in c.launcher.items() if k != "name"}


def reserve(c: Campaign, say: Callable[[str], None]) -> None:
    """Create the reservation unless it exists (state file) or is named as existing."""
    options = _options(c)
    if options is not None and c.persistent is not None:
        say(set_up(c.persistent, c.study, c.system, options, c.workdir))


def release(c: Campaign, say: Callable[[str], None], stopped: str) -> None:
    """Destroy the reservation at the end (kept when asked, or when the campaign was interrupted)."""
    options = _options(c)
    if options is None or c.persistent is None:
        return
    if stopped == "interrupted":
        say(f"persistent reservation {c.persistent.name}: kept for the resumed campaign (interrupted)")
        return
    say(tear_down(c.persistent, c.study, c.system, options, c.workdir))

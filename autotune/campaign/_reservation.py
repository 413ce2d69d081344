"""A campaign's persistent DataWarp reservation (``target.bb.persistent``): created before the first trial job
(once: a resumed campaign finds it), destroyed after the last unless kept or the campaign was interrupted (a
resume needs it). Only the Slurm launcher submits these jobs; on the model nothing runs."""

from __future__ import annotations

from collections.abc import Callable

from autotune.campaign._runtime import Runtime


def _options(rt: Runtime) -> dict[str, object] | None:
    c = rt.campaign
    if c.persistent is None or str(c.launcher.get("name")) != "slurm":
        return None
    return {k: v for k, v in c.launcher.items() if k != "name"}


def reserve(rt: Runtime, say: Callable[[str], None]) -> None:
    """Create the reservation unless it exists (state file) or is named as existing."""
    from autotune.launch import set_up

    options = _options(rt)
    c = rt.campaign
    if options is not None and c.persistent is not None:
        say(set_up(c.persistent, c.study, c.system, options, c.workdir))


def release(rt: Runtime, say: Callable[[str], None], stopped: str) -> None:
    """Destroy the reservation at the end (kept when asked, or when the campaign was interrupted)."""
    from autotune.launch import tear_down

    options = _options(rt)
    c = rt.campaign
    if options is None or c.persistent is None:
        return
    if stopped == "interrupted":
        say(f"persistent reservation {c.persistent.name}: kept for the resumed campaign (interrupted)")
        return
    say(tear_down(c.persistent, c.study, c.system, options, c.workdir))

"""Before the first trial and after the last: ask the launcher whether the jobs can run at all, and
cancel what a stopped campaign still has queued (``BaseLauncher.preflight`` / ``cancel_active``)."""

from __future__ import annotations

from collections.abc import Callable

from autotune.campaign.trial import Runtime
from autotune.launch import RunRequest, describe_pending


def first_requests(rt: Runtime) -> list[RunRequest]:
    """The repetitions of the campaign's first trial (the default configuration), as ``run_trial`` builds them."""
    c = rt.campaign
    config = rt.space.default_config()
    settings = rt.settings_for(config, True)
    repeats = 1 if c.objective.adaptive else c.objective.repeats  # adaptive: one repetition per job
    return [rt.request(0, r, config, True, settings=settings) for r in range(repeats)]


def preflight(rt: Runtime) -> str | None:
    """The launcher's check of the first trial: a note of what it checked, or AutotuneError (one line)."""
    return rt.launcher.preflight(first_requests(rt))


def cancel_active(rt: Runtime, say: Callable[[str], None]) -> None:
    """Cancel the jobs a stopped campaign still has queued or running, and say so."""
    for line in rt.launcher.cancel_active():
        say(line)


def pending_lines(rt: Runtime, numbers: list[int]) -> list[str]:
    """For ``autotune status``: each running trial's job that waits (or waited) in a queue, with its reason."""
    lines = []
    for number in numbers:
        trial_dir = rt.run_dir(number, 0).parent
        for run_dir in sorted(trial_dir.glob("rep-*")) if trial_dir.is_dir() else []:
            text = describe_pending(run_dir)
            if text:
                lines.append(f"  trial {number}: {text}")
    return lines

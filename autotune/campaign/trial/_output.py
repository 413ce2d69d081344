"""A run's output as the user sees it: the last lines of its stdout and stderr, and the report of a default
configuration that failed in every repetition."""

from __future__ import annotations

from autotune.campaign.trial._trial import TrialOutcome
from autotune.launch import RunResult, tail
from autotune.measure import strip_hints_display

TAIL_LINES = 15
LINE_CHARS = 240  # a kernel's JSON record is one long line


def output_tail(result: RunResult, lines: int = TAIL_LINES) -> list[str]:
    """The last lines of a run's stdout and stderr (without the printed hint lines), labelled."""
    out: list[str] = []
    for name, text in (("stdout", result.stdout), ("stderr", result.stderr)):
        t = tail(strip_hints_display(text), lines)
        if t:
            out.append(f"last lines of {name}:")
            out += [f"  | {ln if len(ln) <= LINE_CHARS else ln[:LINE_CHARS] + ' ...'}" for ln in t.splitlines()]
    return out or ["(the run printed nothing)"]


def default_failure(outcome: TrialOutcome) -> str:
    """The fail-fast report: the reason and the last lines of the failed runs' output."""
    reason = outcome.error or "every repetition failed"
    lines = [f"the default configuration failed in every repetition ({len(outcome.repetitions)}): {reason}",
             "stopped before spending the budget; `autotune check CAMPAIGN` runs it once and shows everything"]
    err = strip_hints_display(outcome.stderr_tail)
    if err.strip() == outcome.stdout_tail.strip():  # the trial keeps stdout there when stderr was empty
        err = ""
    lines += output_tail(RunResult(returncode=None, stdout=outcome.stdout_tail, stderr=err))
    return "\n".join(lines)

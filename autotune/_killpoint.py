"""Named steps of a trial's life in the campaign loop, where a test can kill the campaign (``kill -9``) exactly.

``AUTOTUNE_KILL_AT=STEP`` makes the process send itself SIGKILL the first time it reaches ``STEP``;
``AUTOTUNE_KILL_AT=STEP@N`` the N-th time. Unset (always, outside tests) a step costs one environment lookup.
The robustness tests kill a campaign at each step and check what the resumed campaign does
(docs/guide/guarantees.md, "A kill at each step").
"""

from __future__ import annotations

import os
import signal
from collections import Counter

ENV = "AUTOTUNE_KILL_AT"
STEPS = (
    "open:default-queued",  # a new study: the default is queued, the baseline and the start not yet
    "recover:marked",     # resume: a dead trial is marked interrupted
    "recover:enqueued",   # resume: its retry is queued
    "recover:failed",     # resume: it is told FAIL
    "ask:asked",          # Optuna's ask returned: the trial is RUNNING, claimed by nobody
    "ask:claimed",        # the trial names this worker and counts as run; nothing started yet
    "run:finished",       # every repetition finished; nothing of the outcome stored
    "record:written",     # the outcome is stored on the trial, not yet told
    "record:told",        # told COMPLETE/FAIL
)
_seen: Counter[str] = Counter()


def reached(step: str) -> None:
    """Mark ``step`` (one of ``STEPS``) as reached; SIGKILL this process if ``AUTOTUNE_KILL_AT`` names it."""
    want = os.environ.get(ENV)
    if not want:
        return
    name, _, nth = want.partition("@")
    if name not in STEPS:
        raise ValueError(f"{ENV}={want!r}: expected one of {', '.join(STEPS)} (optionally @N)")
    if name != step:
        return
    _seen[step] += 1
    if _seen[step] == int(nth or 1):
        os.kill(os.getpid(), signal.SIGKILL)

"""The serial executor: trials one after another in this process (the default)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TextIO, TypeVar

from autotune.campaign import CampaignLoop
from autotune.execute._base import BaseExecutor

if TYPE_CHECKING:
    from autotune.campaign import Campaign, LoopResult, Runtime
    from autotune.tracking import BaseTracker

T = TypeVar("T")
R = TypeVar("R")


class SerialExecutor(BaseExecutor):
    """Everything in the calling process, in order (no overlap by construction)."""

    name = "serial"

    def run_campaign(self, c: Campaign, rt: Runtime | None = None, *, tracker: BaseTracker | None = None,
                     command_line: str = "", out: TextIO | None = None) -> LoopResult:
        return CampaignLoop(c, runtime=rt, tracker=tracker, command_line=command_line, out=out).run()

    def map(self, fn: Callable[[T], R], items: Sequence[T], *, resources: Sequence[str | None] | None = None,
            progress: Callable[[int, int], None] | None = None,
            on_result: Callable[[int, R], None] | None = None) -> list[R]:
        out: list[R] = []
        for i, item in enumerate(items):
            out.append(fn(item))
            if on_result:
                on_result(i, out[-1])
            if progress:
                progress(len(out), len(items))
        return out

"""What one repetition of an app produced: written by the launchers, read by the extractors (a bottom module,
so that measure/ need not import launch/)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class RunResult:
    """What a repetition produced. A failed run has ``error`` set (one line) and keeps its stderr."""

    returncode: int | None
    stdout: str = ""
    stderr: str = ""
    wall_seconds: float = 0.0
    timed_out: bool = False
    error: str | None = None
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.error is None and self.returncode == 0 and not self.timed_out

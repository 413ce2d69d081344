"""A benchmark's printed lines, kept for its results file."""

from __future__ import annotations

from pathlib import Path


class Transcript:
    """``say`` prints a line at once and keeps it; ``write`` saves every line said."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def say(self, text: str) -> None:
        print(text, flush=True)
        self.lines.append(text)

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(self.lines) + "\n")

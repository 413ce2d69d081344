"""Parse the hints an MPICH library prints at file open (pure, no MPI): what is really in effect for a command.

Upstream MPICH/ROMIO with ``ROMIO_PRINT_HINTS=1``: rank 0 prints, on stdout, at every ``MPI_File_open``
(MPICH 4.0.2, checked here with experiments/campaigns/my-app)::

    key = cb_buffer_size            value = 16777216
    key = cb_nodes                  value = 2
    key = romio_filesystem_type     value = UFS: Generic ROMIO driver for all UNIX-like file systems
    key = romio_aggregator_list     value = 0 1

Cray MPICH with ``MPICH_MPIIO_HINTS_DISPLAY=1`` (format from Cray's documentation; no Cray here)::

    PE 0: MPIIO hints for testFile:
              cb_buffer_size           = 16777216
              striping_factor          = 48

``parse_hints_blocks(text)`` returns every block in order; ``judge_printed(text)`` the hints of the open(s)
that carry the data. ROMIO prints on rank 0 *of the file's communicator* and names neither the file nor the
communicator: a program that writes its file collectively and then reopens it on ``MPI_COMM_SELF`` (upstream
IOR's checks do) prints one block for the collective open and one per rank for every reopen, so the last block
is a one-rank open. The widest open is judged: the one whose ``romio_aggregator_list`` names the most ranks (an
aggregator is a rank of the communicator, so a list of two ranks proves a communicator of at least two).
When every open printed one aggregator, nothing printed tells them apart: only the values all opens agree on
are judged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

_ROMIO = re.compile(r"^\s*key = (?P<key>\S+)\s+value = (?P<value>.*?)\s*$")
_CRAY_HEAD = re.compile(r"^\s*(?:PE\s+\d+:\s*)?MPIIO hints for (?P<file>.*?):?\s*$")
_CRAY_PAIR = re.compile(r"^\s*(?:PE\s+\d+:\s*)?(?P<key>[a-z][a-z0-9_]*)\s*=\s*(?P<value>.*?)\s*$")
MAX_LINES = 100_000  # bounded work on a huge output


def parse_hints_blocks(text: str) -> list[dict[str, Any]]:
    """Every printed block: ``{"format": "romio"|"cray", "file": name or None, "hints": {key: value}}``."""
    blocks: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for line in text.splitlines()[-MAX_LINES:]:
        romio = _ROMIO.match(line)
        if romio:
            key = romio.group("key")
            if current is None or current["format"] != "romio" or key in current["hints"]:
                current = {"format": "romio", "file": None, "hints": {}}
                blocks.append(current)
            current["hints"][key] = romio.group("value")
            continue
        head = _CRAY_HEAD.match(line)
        if head:
            current = {"format": "cray", "file": head.group("file") or None, "hints": {}}
            blocks.append(current)
            continue
        pair = _CRAY_PAIR.match(line) if current is not None and current["format"] == "cray" else None
        if pair and current is not None:
            current["hints"][pair.group("key")] = pair.group("value")
            continue
        current = None
    return [b for b in blocks if b["hints"]]


@dataclass(frozen=True)
class PrintedHints:
    """The hints judged from a run's printed blocks. ``hints``: the judged open's (for the keys every judged open
    agrees on); ``opens``: blocks printed; ``judged``: which open was judged, one phrase ("" for a single open);
    ``disagree``: keys the opens printed different values for and that could not be judged, with those values."""

    hints: dict[str, str] = field(default_factory=dict)
    opens: int = 0
    judged: str = ""
    disagree: dict[str, list[str]] = field(default_factory=dict)


def _width(hints: dict[str, str]) -> int:
    return len(hints.get("romio_aggregator_list", "").split())


def _agreed(blocks: list[dict[str, str]]) -> tuple[dict[str, str], dict[str, list[str]]]:
    """The keys every block that prints them gives the same value, and the others with their values (an
    interleaved output can split a block: a key missing from a piece is no disagreement)."""
    keys = [k for b in blocks for k in b]
    agreed: dict[str, str] = {}
    disagree: dict[str, list[str]] = {}
    for key in dict.fromkeys(keys):
        values = list(dict.fromkeys(b[key] for b in blocks if key in b))
        if len(values) == 1:
            agreed[key] = values[0]
        else:
            disagree[key] = values
    return agreed, disagree


def judge_printed(text: str) -> PrintedHints:
    """The hints of the open(s) that carry the data among every block the MPI library printed (module doc)."""
    parsed = parse_hints_blocks(text)
    blocks = [dict(b["hints"]) for b in parsed]
    if not blocks:
        return PrintedHints()
    if len(blocks) == 1:
        return PrintedHints(blocks[0], 1)
    opens = _opens(parsed)
    widest = max(_width(b) for b in blocks)
    if widest > 1:
        chosen = [b for b in blocks if _width(b) == widest]
        hints, disagree = _agreed(chosen)
        aggs = chosen[0].get("romio_aggregator_list", "").strip()
        which = "the open" if len(chosen) == 1 else f"the {len(chosen)} opens"
        note = (f"judged on {which} with {widest} aggregators (romio_aggregator_list {aggs}), the widest of "
                f"{opens} opens ROMIO printed; the others had fewer aggregators (smaller communicators, "
                "e.g. reopens on MPI_COMM_SELF)")
        return PrintedHints(hints, opens, note, disagree)
    hints, disagree = _agreed(blocks)
    note = (f"{opens} opens printed, each with at most one aggregator: the printed hints cannot tell a "
            "collective open from reopens on MPI_COMM_SELF, so only the values all opens agree on were judged")
    return PrintedHints(hints, opens, note, disagree)


def _opens(parsed: list[dict[str, Any]]) -> int:
    """How many opens printed: every open prints each of its keys once, so the most frequent key counts them
    (ranks that print at once interleave their lines, which splits blocks; the count stays right)."""
    seen: dict[tuple[str, str], int] = {}
    for b in parsed:
        for key in b["hints"]:
            seen[(b["format"], key)] = seen.get((b["format"], key), 0) + 1
    return max(seen.values(), default=0)


def parse_hints_display(text: str) -> dict[str, str]:
    """The judged hints (``judge_printed``) of the file the program writes, as the MPI library printed them."""
    return judge_printed(text).hints


def strip_hints_display(text: str) -> str:
    """``text`` without the printed hint lines (so an output tail shows the program's own lines)."""
    return "\n".join(ln for ln in text.splitlines() if not _ROMIO.match(ln))

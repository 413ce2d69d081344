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

``parse_hints_blocks(text)`` returns every block in order; ``parse_hints_display(text)`` the hints of
the last file opened (``{}`` when the text has none).
"""

from __future__ import annotations

import re
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


def parse_hints_display(text: str) -> dict[str, str]:
    """The hints in effect for the last file the program opened, as the MPI library printed them."""
    blocks = parse_hints_blocks(text)
    return dict(blocks[-1]["hints"]) if blocks else {}


def strip_hints_display(text: str) -> str:
    """``text`` without the printed hint lines (so an output tail shows the program's own lines)."""
    return "\n".join(ln for ln in text.splitlines() if not _ROMIO.match(ln))

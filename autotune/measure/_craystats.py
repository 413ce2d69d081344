"""Parse Cray MPICH's ``MPICH_MPIIO_STATS=1`` and ``MPICH_MPIIO_TIMERS=1`` reports (pure, no MPI).

Rank 0 prints one box per file on close (KAUST Shaheen II training; ALCF Theta I/O talk)::

    | MPIIO write access patterns for testFile
    | aggregators        = 48
    | stripe sized writes = 4096
    | read-modify-write count = 0
    ...
    | MPIIO write by phases, all ranks, for testFile
    | imbalance = 70473 4113200 4038142 0%
    | raw write BW (MiB/s) = 11742.909

``parse_mpiio_stats(text)`` returns ``{"files": {name: {...}}, "summary": {...}}`` or ``{}`` when the
text has no report. Keys are lower-case with ``_`` (``read_modify_write_count``, ``raw_write_bw_mib_s``);
timer phases (``min max ave pct``) become small dicts.
"""

from __future__ import annotations

import re
from typing import Any

from autotune._result import RunResult

_HEADER = re.compile(
    r"^MPIIO\s+(?P<op>write|read)\s+(?:(?P<access>access patterns)|by phases,.*?)\s+for\s+(?P<file>\S.*?)\s*$",
    re.IGNORECASE,
)
_PHASE = re.compile(r"^(-?[\d.]+)\s+(-?[\d.]+)\s+(-?[\d.]+)\s+(-?[\d.]+)%$")
_PAIR = re.compile(r"^(.*?\S)\s*(?<![!<>])=\s*(.*)$")
_LEADING_INT = re.compile(r"^(-?\d+)(?:\s*=.*)?$")
_SUMMED = ("system_writes", "stripe_sized_writes", "read_modify_write_count", "read_modify_write_bytes",
           "system_reads", "stripe_sized_reads", "total_bytes_for_writes", "total_bytes_for_reads")
_MAXED = ("aggregators", "stripe_count", "stripe_size")
_TIMER_KEYS = ("raw_write_bw_mib_s", "net_write_bw_mib_s", "raw_read_bw_mib_s", "net_read_bw_mib_s")


def _key(label: str) -> str:
    label = label.replace("(MiB/s)", "MiB/s").replace("(*)", "")
    return re.sub(r"[^a-z0-9]+", "_", label.lower()).strip("_")


def _value(text: str) -> Any:
    """``48`` -> 48, ``11742.909`` -> float, ``4294967296 = 4096 MiB = 4 GiB`` -> 4294967296, ``NA`` -> None."""
    text = text.strip()
    if text.upper() in ("NA", "N/A", "--"):
        return None
    phase = _PHASE.match(text)
    if phase:
        lo, hi, ave, pct = phase.groups()
        return {"min": float(lo), "max": float(hi), "ave": float(ave), "pct": float(pct)}
    m = _LEADING_INT.match(text)
    if m:
        return int(m.group(1))
    try:
        return float(text)
    except ValueError:
        return text


def _clean(line: str) -> str:
    """A report line without markdown escapes/emphasis (as seeds render it) and the leading ``|``."""
    line = line.replace("**", "").replace("\\*", "*").replace("\\_", "_").strip()
    return line[1:].strip() if line.startswith("|") else ""


def parse_sections(text: str) -> list[dict[str, Any]]:
    """Every report box: ``{"kind": "access"|"phases", "op", "file", "values": {...}}`` in order."""
    sections: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for raw in text.splitlines():
        stripped = raw.strip()
        if stripped.startswith(("+--", "+==")):
            if current is not None and current["values"]:
                current = None
            continue
        line = _clean(raw)
        if not line:
            continue
        head = _HEADER.match(line)
        if head:
            kind = "access" if head.group("access") else "phases"
            current = {"kind": kind, "op": head.group("op").lower(), "file": head.group("file"), "values": {}}
            sections.append(current)
            continue
        pair = _PAIR.match(line)
        if current is None or pair is None or line.startswith("(") or line.lower().startswith("time scale"):
            continue
        current["values"][_key(pair.group(1))] = _value(pair.group(2))
    return sections


def parse_mpiio_stats(text: str) -> dict[str, Any]:
    """Per-file stats and timers plus a summary (counts summed over files, aggregators/stripe maxed)."""
    sections = parse_sections(text)
    if not sections:
        return {}
    files: dict[str, dict[str, Any]] = {}
    summary: dict[str, Any] = {}
    for sec in sections:
        entry = files.setdefault(sec["file"], {})
        target = entry.setdefault(sec["op"] if sec["kind"] == "access" else f"{sec['op']}_timers", {})
        target.update(sec["values"])
        for key, value in sec["values"].items():
            if not isinstance(value, (int, float)):
                continue
            if key in _SUMMED:
                summary[key] = summary.get(key, 0) + value
            elif key in _MAXED:
                summary[key] = max(summary.get(key, value), value)
            elif key in _TIMER_KEYS:
                summary[key] = value
    if summary.get("system_writes"):
        summary["stripe_sized_write_fraction"] = round(summary.get("stripe_sized_writes", 0) / summary["system_writes"], 4)
    return {"files": files, "summary": summary}


def add_mpiio_stats(result: RunResult) -> RunResult:
    """Put the Cray MPI-IO report of ``result``'s stderr (if any) in ``result.info["mpiio_stats"]``.

    Called for every repetition whatever launched it (``MPICH_MPIIO_STATS=1`` prints on rank 0's stderr).
    """
    if "mpiio_stats" not in result.info:
        stats = parse_mpiio_stats(result.stderr)
        if stats:
            result.info["mpiio_stats"] = stats
    return result

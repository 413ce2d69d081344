"""``extractor: h5bench`` and ``extractor: fio``.

h5bench (write/read patterns): ``SYNC Raw write rate: 1.248 GB/s`` (1.2 and later; the unit moves with the
size, binary: "MB/s" is MiB/s), the older ``Sync Raw write rate = 3.241 GB/sec`` (GiB/s), the
``Observed`` rates and ``Raw write time``. Metrics: ``<op>_bandwidth_mib_s`` (raw rate),
``<op>_observed_bandwidth_mib_s``, ``<op>_seconds`` (raw time), ``completion_seconds``.

fio: ``--output-format=json`` (and json+) output, else the classic text (fio 3: ``WRITE: bw=2400MiB/s`` in
"Run status group"; fio 2: ``aggrb=2400.5MB/s``, base 2). Metrics: ``<op>_bandwidth_mib_s`` (all jobs),
``<op>_iops``, ``<op>_seconds`` (the group's longest run time).
"""

from __future__ import annotations

import json
import re
from typing import Any, ClassVar

from autotune.measure._presets import DECIMAL_TO_MIB, NUMBER, PresetExtractor, to_mib

_H5_RATE = re.compile(rf"(Raw|Observed) (write|read) rate\s*[:=]\s*({NUMBER})\s*([KMGTP]?)B/s(?:ec)?", re.IGNORECASE)
_H5_TIME = re.compile(rf"Raw (write|read) time\s*[:=]\s*({NUMBER})\s*s", re.IGNORECASE)
_H5_DONE = re.compile(rf"Observed (?:read )?completion time\s*[:=]\s*({NUMBER})\s*s", re.IGNORECASE)


class H5benchExtractor(PresetExtractor):
    """h5bench's performance summary (see the module docstring)."""

    name: ClassVar[str] = "h5bench"
    tool: ClassVar[str] = "h5bench"

    def parse(self, text: str) -> dict[str, float]:
        out: dict[str, float] = {}
        for kind, op, value, prefix in _H5_RATE.findall(text):
            key = f"{op.lower()}_bandwidth_mib_s" if kind.lower() == "raw" else f"{op.lower()}_observed_bandwidth_mib_s"
            out[key] = to_mib(float(value), prefix or "B")
        for op, value in _H5_TIME.findall(text):
            out[f"{op.lower()}_seconds"] = float(value)
        for value in _H5_DONE.findall(text):
            out["completion_seconds"] = float(value)
        return out


def _fio_json(text: str) -> dict[str, float] | None:
    start = text.find("{")
    if start < 0 or '"jobs"' not in text:
        return None
    try:
        doc: Any = json.loads(text[start:text.rfind("}") + 1])
    except json.JSONDecodeError:
        return None
    jobs = doc.get("jobs") if isinstance(doc, dict) else None
    if not isinstance(jobs, list):
        return None
    out: dict[str, float] = {}
    for op in ("write", "read"):
        stats = [j[op] for j in jobs if isinstance(j, dict) and isinstance(j.get(op), dict) and j[op].get("io_bytes", 0)]
        if not stats:
            continue
        bw = sum(float(s.get("bw_bytes", float(s.get("bw", 0)) * 1024)) for s in stats)
        out[f"{op}_bandwidth_mib_s"] = bw / 2**20
        out[f"{op}_iops"] = sum(float(s.get("iops", 0)) for s in stats)
        out[f"{op}_seconds"] = max(float(s.get("runtime", 0)) for s in stats) / 1000.0
    return out


_GROUP_NEW = re.compile(rf"^\s*(WRITE|READ):\s*bw=({NUMBER})([KMGTP]i?B|B)/s")
_GROUP_OLD = re.compile(rf"^\s*(WRITE|READ):\s*io=\S+,\s*aggrb=({NUMBER})([KMGTP]?B)/s")
_RUN = re.compile(r"run=(\d+)-(\d+)msec|maxt=\s*(\d+)msec")
_JOB_IOPS = re.compile(rf"^\s*(write|read)\s*:.*?\b(?:IOPS|iops)=\s*({NUMBER})([kKmM]?)")


def _fio_text(text: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for ln in text.splitlines():
        m = _GROUP_NEW.match(ln) or _GROUP_OLD.match(ln)
        if m:
            op, value, unit = m.group(1).lower(), float(m.group(2)), m.group(3)
            # fio 3 prints binary units with an "i" (MiB/s); "MB/s" there is decimal. fio 2's MB/s is binary.
            decimal = m.re is _GROUP_NEW and "i" not in unit and unit != "B"
            out[f"{op}_bandwidth_mib_s"] = value * DECIMAL_TO_MIB[unit[0]] if decimal else to_mib(value, unit)
            r = _RUN.search(ln)
            if r:
                out[f"{op}_seconds"] = float(r.group(2) or r.group(3)) / 1000.0
            continue
        j = _JOB_IOPS.match(ln)
        if j:
            scale = {"k": 1e3, "m": 1e6}.get(j.group(3).lower(), 1.0)
            key = f"{j.group(1)}_iops"
            out[key] = out.get(key, 0.0) + float(j.group(2)) * scale
    return out


class FioExtractor(PresetExtractor):
    """fio's JSON or text output (see the module docstring)."""

    name: ClassVar[str] = "fio"
    tool: ClassVar[str] = "fio"

    def parse(self, text: str) -> dict[str, float]:
        parsed = _fio_json(text)
        return parsed if parsed is not None else _fio_text(text)

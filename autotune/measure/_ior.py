"""``extractor: ior`` and ``extractor: mdtest``: IOR 3.x/4.x and mdtest (1.9 and IOR's) outputs.

IOR: the "Summary of all tests" table (IOR 3 and 4: columns found by their header, so IOR 4's extra
Stonewall columns do not matter), else the ``Max Write:``/``Max Read:`` lines, else the per-iteration
results table (``access bw(MiB/s) ...``, best iteration); ``-O summaryFormat=JSON`` output too.
Metrics per operation (write, read): ``<op>_bandwidth_mib_s`` (IOR's Max(MiB), i.e. "Max Write"),
``<op>_bandwidth_mean_mib_s``, ``<op>_iops`` (Max(OPs)), ``<op>_seconds`` (Mean(s)).

mdtest: the ``SUMMARY rate`` table (mdtest 1.9 writes ``SUMMARY:``); ``<operation>_ops_per_sec`` is its Max
column (``file_creation_ops_per_sec``, ``directory_stat_ops_per_sec``, ...) and ``..._ops_per_sec_mean`` its
Mean (a rate, maximised: say ``direction: maximize``).
The ``SUMMARY time`` table of IOR 4's mdtest is not a rate and is ignored.
"""

from __future__ import annotations

import json
import re
from typing import Any, ClassVar

from autotune.measure._presets import NUMBER, PresetExtractor, slug

_MAX_LINE = re.compile(rf"^\s*Max (Write|Read):\s*({NUMBER})\s*MiB/sec", re.MULTILINE)
_SUMMARY_COLS = {"Max(MiB)": "bandwidth_mib_s", "Mean(MiB)": "bandwidth_mean_mib_s", "Max(OPs)": "iops",
                 "Mean(s)": "seconds"}
_JSON_KEYS = {"bwMaxMIB": "bandwidth_mib_s", "bwMeanMIB": "bandwidth_mean_mib_s", "OPsMax": "iops", "MeanTime": "seconds"}


def _float(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _summary(lines: list[str]) -> dict[str, float]:
    out: dict[str, float] = {}
    start = next((i for i, ln in enumerate(lines) if ln.strip().startswith("Summary of all tests")), None)
    if start is None:
        return out
    header: list[str] = []
    for ln in lines[start + 1:]:
        words = ln.split()
        if not words:
            if header and out:
                break
            continue
        if words[0] == "Operation":
            header = words
            continue
        if header and words[0] in ("write", "read"):
            for col, name in _SUMMARY_COLS.items():
                if col in header and header.index(col) < len(words):
                    value = _float(words[header.index(col)])
                    if value is not None:
                        out[f"{words[0]}_{name}"] = value  # several tests: the last one's
        elif header and out:
            break
    return out


def _results_table(lines: list[str]) -> dict[str, float]:
    """Best iteration per operation from the ``access bw(MiB/s) ...`` table (no summary printed)."""
    out: dict[str, float] = {}
    header: list[str] = []
    for ln in lines:
        words = ln.split()
        if words[:2] == ["access", "bw(MiB/s)"]:
            header = words
            continue
        if header and words and words[0] in ("write", "read") and len(words) > 1:
            bw = _float(words[1])
            if bw is not None:
                key = f"{words[0]}_bandwidth_mib_s"
                out[key] = max(out.get(key, bw), bw)
            if "IOPS" in header and header.index("IOPS") < len(words):
                iops = _float(words[header.index("IOPS")])
                if iops is not None:
                    out[f"{words[0]}_iops"] = max(out.get(f"{words[0]}_iops", iops), iops)
    return out


def _json(text: str) -> dict[str, float]:
    start = text.find("{")
    if start < 0 or '"summary"' not in text:
        return {}
    try:
        doc: Any = json.loads(text[start:text.rfind("}") + 1])
    except json.JSONDecodeError:
        return {}
    out: dict[str, float] = {}
    for row in doc.get("summary", []) if isinstance(doc, dict) else []:
        op = str(row.get("operation", "")).lower()
        if op in ("write", "read"):
            for key, name in _JSON_KEYS.items():
                if isinstance(row.get(key), (int, float)):
                    out[f"{op}_{name}"] = float(row[key])
    return out


class IorExtractor(PresetExtractor):
    """IOR's results (see the module docstring)."""

    name: ClassVar[str] = "ior"
    tool: ClassVar[str] = "IOR"

    def parse(self, text: str) -> dict[str, float]:
        lines = text.splitlines()
        out = _json(text) or _summary(lines)
        for op, value in _MAX_LINE.findall(text):
            out.setdefault(f"{op.lower()}_bandwidth_mib_s", float(value))
        if not out:
            out = _results_table(lines)
        return out


_MD_ROW = re.compile(rf"^\s*([A-Za-z][A-Za-z ]*?)\s*:\s*({NUMBER})\s+({NUMBER})\s+({NUMBER})\s+({NUMBER})\s*$")


class MdtestExtractor(PresetExtractor):
    """mdtest's SUMMARY rate table (see the module docstring)."""

    name: ClassVar[str] = "mdtest"
    tool: ClassVar[str] = "mdtest"

    def parse(self, text: str) -> dict[str, float]:
        out: dict[str, float] = {}
        in_rate = False
        for ln in text.splitlines():
            s = ln.strip()
            if s.startswith("SUMMARY"):
                in_rate = not s.startswith("SUMMARY time")  # "SUMMARY rate:" (IOR's mdtest) or "SUMMARY:" (1.9)
                continue
            if not in_rate:
                continue
            m = _MD_ROW.match(ln)
            if m:
                name = slug(m.group(1))
                out[f"{name}_ops_per_sec"] = float(m.group(2))
                out[f"{name}_ops_per_sec_mean"] = float(m.group(4))
            elif s.startswith("--") and not s.startswith("---"):
                in_rate = False
        return out

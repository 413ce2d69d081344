"""Parsing and printing of sizes ("8MiB", "397.44GiB") and durations ("8h", "90s")."""

from __future__ import annotations

import math
import re

from autotune.errors import ConfigError

_SIZE_UNITS: dict[str, int] = {
    "": 1, "b": 1,
    "k": 1024, "kb": 1000, "kib": 1024,
    "m": 1024**2, "mb": 1000**2, "mib": 1024**2,
    "g": 1024**3, "gb": 1000**3, "gib": 1024**3,
    "t": 1024**4, "tb": 1000**4, "tib": 1024**4,
    "p": 1024**5, "pb": 1000**5, "pib": 1024**5,
}
_SIZE_RE = re.compile(r"^\s*(-?[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([a-zA-Z]*)\s*$")
_DURATION_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0, "d": 86400.0}
_DURATION_RE = re.compile(r"([0-9]*\.?[0-9]+)\s*([a-z]*)")


def parse_size(value: object, what: str = "size") -> int:
    """Bytes from an int or a string such as ``"8MiB"``, ``"1m"``, ``"397.44GiB"`` (k/m/g alone are binary)."""
    if isinstance(value, bool):
        raise ConfigError(f"{what}: {value!r} is not a size (expected bytes or e.g. '8MiB')")
    if isinstance(value, int):
        n = value
    elif isinstance(value, float) and value.is_integer():
        n = int(value)
    elif isinstance(value, str):
        m = _SIZE_RE.match(value)
        unit = m.group(2).lower() if m else ""
        if not m or unit not in _SIZE_UNITS:
            raise ConfigError(f"{what}: {value!r} is not a size (expected e.g. 1048576, '1MiB', '8m', '2TiB')")
        n = round(float(m.group(1)) * _SIZE_UNITS[unit])
    else:
        raise ConfigError(f"{what}: {value!r} is not a size (expected bytes or e.g. '8MiB')")
    if n < 0:
        raise ConfigError(f"{what}: {value!r} is negative (expected a size >= 0)")
    return n


def parse_duration(value: object, what: str = "duration") -> float:
    """Seconds from a number or a string such as ``"8h"``, ``"90s"``, ``"1h30m"``."""
    if isinstance(value, bool):
        raise ConfigError(f"{what}: {value!r} is not a duration (expected seconds or e.g. '8h')")
    if isinstance(value, (int, float)):
        secs = float(value)
    elif isinstance(value, str):
        text = value.strip().lower()
        pos, secs = 0, 0.0
        for m in _DURATION_RE.finditer(text):
            if m.start() != pos or m.group(2) not in _DURATION_UNITS:
                raise ConfigError(f"{what}: {value!r} is not a duration (expected e.g. '90s', '30m', '8h', '1h30m')")
            secs += float(m.group(1)) * _DURATION_UNITS[m.group(2)]
            pos = m.end()
            while pos < len(text) and text[pos] == " ":
                pos += 1
        if pos != len(text) or not text:
            raise ConfigError(f"{what}: {value!r} is not a duration (expected e.g. '90s', '30m', '8h', '1h30m')")
    else:
        raise ConfigError(f"{what}: {value!r} is not a duration (expected seconds or e.g. '8h')")
    if secs <= 0 or math.isinf(secs) or math.isnan(secs):
        raise ConfigError(f"{what}: {value!r} must be a positive duration")
    return secs


def format_size(n: int | float) -> str:
    """Shortest exact binary form: 8388608 -> '8MiB', 1000 -> '1000B'."""
    n = int(n)
    for unit, mult in (("PiB", 1024**5), ("TiB", 1024**4), ("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= mult and n % mult == 0:
            return f"{n // mult}{unit}"
    return f"{n}B"


def lfs_size(n: int) -> str:
    """Size in `lfs setstripe -S` syntax (k/m/g suffixes, binary)."""
    for unit, mult in (("g", 1024**3), ("m", 1024**2), ("k", 1024)):
        if n >= mult and n % mult == 0:
            return f"{n // mult}{unit}"
    return str(n)


def format_duration(secs: float) -> str:
    """'2h05m', '3m20s', '12.3s'."""
    if secs < 60:
        return f"{secs:.1f}s"
    m, s = divmod(round(secs), 60)
    if m < 60:
        return f"{m}m{s:02d}s"
    h, m = divmod(m, 60)
    return f"{h}h{m:02d}m"

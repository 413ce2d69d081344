"""Strict reading of YAML mappings: unknown keys are rejected with the allowed ones named."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from autotune.errors import ConfigError


def load_yaml(path: str | Path, what: str = "file") -> dict[str, Any]:
    """Load a YAML mapping; a missing file or bad YAML is a one-line ConfigError."""
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"{what} {str(p)!r} not found")
    try:
        data = yaml.safe_load(p.read_text())
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "invalid YAML"
        raise ConfigError(f"{what} {str(p)!r}{where}: {problem}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{what} {str(p)!r}: expected a mapping at the top level, got {type(data).__name__}")
    return data


def check_keys(data: Any, allowed: set[str] | frozenset[str], where: str, required: tuple[str, ...] = ()) -> dict[str, Any]:
    """Return ``data`` as a dict after checking it has only ``allowed`` keys and all ``required`` ones."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a mapping, got {data!r}")
    unknown = sorted(str(k) for k in data if k not in allowed)
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r} (allowed: {', '.join(sorted(allowed))})")
    for key in required:
        if key not in data:
            raise ConfigError(f"{where}: missing required key {key!r}")
    return dict(data)


def expect(value: Any, types: type | tuple[type, ...], where: str, expected: str) -> Any:
    """Type check with a one-line error (bools are not ints here)."""
    if isinstance(value, bool) and bool not in (types if isinstance(types, tuple) else (types,)):
        raise ConfigError(f"{where}: {value!r} is not {expected}")
    if not isinstance(value, types):
        raise ConfigError(f"{where}: {value!r} is not {expected}")
    return value


def positive_int(value: Any, where: str) -> int:
    v = expect(value, int, where, "a positive integer")
    if v < 1:
        raise ConfigError(f"{where}: {v} is not a positive integer")
    return int(v)

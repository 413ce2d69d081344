"""Strict reading of YAML mappings: unknown keys are rejected with the allowed ones named.

The loader refuses what would otherwise surprise a user or crash later: a file that is not UTF-8
text, duplicate keys (YAML would silently keep the last), nesting deeper than ``MAX_DEPTH``, integers
longer than ``MAX_DIGITS`` digits, and documents whose aliases expand to more than ``MAX_VALUES`` values
(an "alias bomb": nine levels of nine aliases make 9**9 leaves from a few lines). ``plain_text`` keeps
control characters (newlines included) out of every value that reaches a hints file, an environment or
a printed snippet.
"""

from __future__ import annotations

import re
import reprlib
from pathlib import Path
from typing import Any

import yaml

from autotune.errors import ConfigError

MAX_DEPTH = 50       # a campaign file nests 4-5 levels; anything far deeper is a mistake or an attack
MAX_DIGITS = 100     # the largest sensible integer (a size in bytes) has ~20 digits
MAX_INT = 2**63 - 1  # and fits a signed 64-bit integer (Optuna's and SQL's integer columns, numpy)
MAX_BYTES = 4 << 20  # a campaign/space/profile file is a few KiB
MAX_VALUES = 100_000  # values once aliases are expanded: a campaign has a few hundred; 9 aliases of 9 make 9**9
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u0085\u2028\u2029]")


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses duplicate keys, deep nesting and huge integers."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        self._depth = getattr(self, "_depth", 0) + 1
        try:
            if self._depth > MAX_DEPTH:
                mark = self.peek_event().start_mark
                raise ConfigError(f"line {mark.line + 1}: nested deeper than {MAX_DEPTH} levels")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def compose_document(self) -> Any:
        node = super().compose_document()
        if node is not None and _expanded_size(node, {}) > MAX_VALUES:
            raise ConfigError(f"line {node.start_mark.line + 1}: the document expands to more than {MAX_VALUES} values "
                              f"through its aliases (*name), at most {MAX_VALUES} allowed")
        return node

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        if isinstance(node, yaml.MappingNode):
            seen: set[Any] = set()
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":  # `<<: *base` may override keys: not a duplicate
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    dup = key in seen
                    seen.add(key)
                except TypeError:  # an unhashable key: SafeLoader reports it below
                    continue
                if dup:
                    raise ConfigError(f"line {key_node.start_mark.line + 1}: duplicate key {key!r} "
                                      f"(each key may appear once)")
        return super().construct_mapping(node, deep=deep)

    def construct_yaml_int(self, node: Any) -> Any:
        digits = sum(ch.isdigit() for ch in str(node.value))
        if digits > MAX_DIGITS:
            raise ConfigError(f"line {node.start_mark.line + 1}: an integer of {digits} digits "
                              f"(at most {MAX_DIGITS} allowed)")
        value = super().construct_yaml_int(node)
        if abs(value) > MAX_INT:
            raise ConfigError(f"line {node.start_mark.line + 1}: {node.value} is out of range "
                              f"(integers are at most {MAX_INT}, 2**63 - 1)")
        return value


def _expanded_size(node: Any, memo: dict[int, int]) -> int:
    """How many values ``node`` stands for once every alias is expanded (each node counted once per use)."""
    key = id(node)
    if key in memo:
        return memo[key]
    memo[key] = MAX_VALUES + 1  # a node reached again while being counted: a recursive alias
    size = 1
    if isinstance(node, yaml.SequenceNode):
        size += sum(_expanded_size(child, memo) for child in node.value)
    elif isinstance(node, yaml.MappingNode):
        size += sum(_expanded_size(k, memo) + _expanded_size(v, memo) for k, v in node.value)
    memo[key] = min(size, MAX_VALUES + 1)
    return memo[key]


_StrictLoader.add_constructor("tag:yaml.org,2002:int", _StrictLoader.construct_yaml_int)


def read_text(path: str | Path, what: str = "file") -> str:
    """The UTF-8 text of ``path``; a missing, unreadable, huge or binary file is a one-line ConfigError."""
    p = Path(path)
    try:
        if not p.is_file():
            raise ConfigError(f"{what} {str(p)!r} not found")
        if p.stat().st_size > MAX_BYTES:
            raise ConfigError(f"{what} {str(p)!r}: {p.stat().st_size} bytes, more than the {MAX_BYTES} allowed")
        raw = p.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{what} {str(p)!r}: cannot be read ({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{what} {str(p)!r}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start})") from None
    if "\x00" in text:
        raise ConfigError(f"{what} {str(p)!r}: a binary file (NUL byte at offset {text.index(chr(0))}), expected YAML text")
    return text


def parse_yaml(text: str, where: str) -> Any:
    """Parse ``text`` strictly (see the module doc); every problem is a one-line ConfigError naming ``where``."""
    try:
        return yaml.load(text, Loader=_StrictLoader)  # a SafeLoader: no arbitrary objects
    except ConfigError as exc:
        raise ConfigError(f"{where} {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "invalid YAML"
        raise ConfigError(f"{where}{line}: {problem}") from None
    except (RecursionError, ValueError, OverflowError) as exc:  # belt and braces: never an internal error
        raise ConfigError(f"{where}: not a valid YAML document ({type(exc).__name__})") from None


def load_yaml(path: str | Path, what: str = "file") -> dict[str, Any]:
    """Load a YAML mapping; a missing file, non-UTF-8 text or bad YAML is a one-line ConfigError."""
    p = Path(path)
    data = parse_yaml(read_text(p, what), f"{what} {str(p)!r}")
    if not isinstance(data, dict):
        raise ConfigError(f"{what} {str(p)!r}: expected a mapping at the top level, got {type(data).__name__}")
    return data


def check_keys(data: Any, allowed: set[str] | frozenset[str] | None, where: str,
               required: tuple[str, ...] = ()) -> dict[str, Any]:
    """Return ``data`` as a dict after checking it has only ``allowed`` keys (None: any string key)
    and all ``required`` ones."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a mapping (key: value lines), got {type(data).__name__} {_short(data)}")
    if allowed is None:
        bad = [k for k in data if not isinstance(k, str)]
        if bad:
            raise ConfigError(f"{where}: key {bad[0]!r} is not a string")
    else:
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
        raise ConfigError(f"{where}: {_short(value)} is not {expected}")
    if not isinstance(value, types):
        raise ConfigError(f"{where}: {_short(value)} is not {expected}")
    return value


def positive_int(value: Any, where: str) -> int:
    v = expect(value, int, where, "a positive integer")
    if v < 1:
        raise ConfigError(f"{where}: {v} is not a positive integer")
    return int(v)


def plain_text(value: Any, where: str, what: str = "text") -> str:
    """``str(value)`` if it has no control character (newline, tab, escape, NUL...), else a ConfigError.

    Used for every value that ends up in a hints file, an environment variable or a printed snippet:
    a newline there would start a new line of a file or a new shell command.
    """
    text = str(value)
    m = _CONTROL.search(text)
    if m:
        raise ConfigError(f"{where}: {_short(text)} contains the control character {m.group()!r} "
                          f"(expected {what} on one line)")
    return text


_REPR = reprlib.Repr()  # Python 3.11's Repr takes no arguments: limits set one by one
_REPR.maxlevel, _REPR.maxstring, _REPR.maxlong, _REPR.maxother = 3, 120, 40, 80
_REPR.maxtuple = _REPR.maxlist = _REPR.maxarray = _REPR.maxdict = _REPR.maxset = _REPR.maxfrozenset = 6


def _short(value: Any, limit: int = 80) -> str:
    """A bounded ``repr`` of ``value``: nested or huge values are cut (never expanded whole)."""
    text = _REPR.repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def shown(value: Any, limit: int = 80) -> str:
    """``value`` as an error message quotes it: a bounded ``repr`` (a 50 KB name is not echoed whole)."""
    return _short(value, limit)

"""A trial's verification as text: every setting with its verdict and the evidence, problems first (the progress
line, ``status``, the summary and the trials table say the same thing)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from autotune.measure._effect import IN_EFFECT, NOT_IN_EFFECT, NOT_PASSED, NOT_VERIFIABLE

ORDER = (NOT_IN_EFFECT, NOT_PASSED, NOT_VERIFIABLE, IN_EFFECT)
PROBLEMS = (NOT_IN_EFFECT, NOT_PASSED)
_SHORT = {NOT_IN_EFFECT: "NOT IN EFFECT", NOT_PASSED: "not passed", NOT_VERIFIABLE: "unverified", IN_EFFECT: "ok"}


def _ordered(verification: Mapping[str, Mapping[str, Any]],
             states: tuple[str, ...]) -> list[tuple[str, str, Mapping[str, Any]]]:
    return [(state, key, v) for state in states for key, v in sorted(verification.items())
            if v.get("state") == state]


def verdict_lines(verification: Mapping[str, Mapping[str, Any]], states: tuple[str, ...] = ORDER,
                  indent: str = "  ") -> list[str]:
    """``cb_nodes=2: not in effect: <evidence>`` per setting in ``states``, problems first."""
    out = []
    for state, key, v in _ordered(verification, states):
        seen = v.get("observed")
        got = f" (observed {seen})" if state == NOT_IN_EFFECT and seen not in (None, "") else ""
        out.append(f"{indent}{key}={v.get('requested')}: {state}{got}: {v.get('how') or 'no evidence recorded'}")
    return out


def verdict_cell(verification: Mapping[str, Mapping[str, Any]]) -> str:
    """One compact cell for a table: ``NOT IN EFFECT cb_nodes; ok romio_cb_write`` ("-": nothing requested)."""
    groups: dict[str, list[str]] = {}
    for state, key, _ in _ordered(verification, ORDER):
        groups.setdefault(_SHORT[state], []).append(key)
    return "; ".join(f"{word} {','.join(keys)}" for word, keys in groups.items()) or "-"


def verdict_brief(verification: Mapping[str, Mapping[str, Any]]) -> str:
    """The problems of one trial for its progress line: ``cb_nodes=2 not in effect (2 of 4 ranks wrote ...)``."""
    return "; ".join(f"{key}={v.get('requested')} {state} ({v.get('how')})"
                     for state, key, v in _ordered(verification, PROBLEMS))

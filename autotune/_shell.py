"""Text printed for a shell: every printer builds its lines with these two helpers.

A word goes through ``quote`` (POSIX single quotes, ``shlex.quote``); a comment line goes through
``comment``, which shows control characters escaped (``\\n``, ``\\x1b``...) so that a value cannot end
the comment and start a command on the next line of what a user pastes into bash. bash reads a
comment up to the next newline only (bash(1), COMMENTS), so a comment without a newline or carriage
return is inert whatever else it holds.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

_CONTROL = re.compile(r"[\x00-\x1f\x7f\x80-\x9f\u2028\u2029]")


def visible(text: Any) -> str:
    """``str(text)`` with every control character (newline, carriage return, escape, NUL...) escaped."""
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], str(text))


def comment(text: Any) -> str:
    """One shell comment line ``# text``: pasted into bash it runs nothing."""
    return f"# {visible(text)}"


def quote(word: Any) -> str:
    """One shell word that bash reads back as exactly ``word`` (quoted only when it needs to be)."""
    return shlex.quote(str(word))

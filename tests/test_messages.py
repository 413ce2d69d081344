"""Every user-facing error message is formatted: no ``{...}`` placeholder of a plain string (a missing ``f``)
is left in the text of a ``raise`` or of a call to an ``...Error``/``...Exception`` class across autotune/."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import autotune

PACKAGE = Path(autotune.__file__).resolve().parent
PLACEHOLDER = re.compile(r"\{[^{}\n]*[A-Za-z_][^{}\n]*\}")   # {name}, {x!r}, {", ".join(...)}: code, not text


def _plain_strings(node: ast.AST, source: str) -> list[tuple[int, str]]:
    """(line, text) of the plain (non-f) string literals inside ``node``, implicit concatenations included."""
    out: list[tuple[int, str]] = []
    fmt_receivers = {id(n.func.value) for n in ast.walk(node)
                     if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "format"}
    inside_f: set[int] = set()
    for n in ast.walk(node):
        if isinstance(n, ast.JoinedStr):
            inside_f.update(id(c) for c in ast.walk(n))
            segment = ast.get_source_segment(source, n) or ""
            try:
                tokens = list(tokenize.generate_tokens(io.StringIO(segment).readline))
            except (tokenize.TokenError, SyntaxError):
                continue
            for tok in tokens:
                prefix = re.match(r"[A-Za-z]*", tok.string)
                if tok.type == tokenize.STRING and prefix is not None and "f" not in prefix.group().lower():
                    out.append((n.lineno + tok.start[0] - 1, tok.string))
    for n in ast.walk(node):
        if (isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in inside_f
                and id(n) not in fmt_receivers):
            out.append((n.lineno, n.value))
    return out


def _message_nodes(tree: ast.AST) -> list[ast.AST]:
    nodes: list[ast.AST] = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Raise) and n.exc is not None:
            nodes.append(n.exc)
        elif isinstance(n, ast.Call):
            name = n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id if isinstance(n.func, ast.Name) else ""
            if name.endswith(("Error", "Exception")):
                nodes.append(n)
    return nodes


def unformatted(source: str) -> list[tuple[int, str]]:
    """The plain string literals of error messages in ``source`` that still hold a ``{...}`` placeholder."""
    tree = ast.parse(source)
    found = {(line, text) for node in _message_nodes(tree) for line, text in _plain_strings(node, source)
             if PLACEHOLDER.search(text)}
    return sorted(found)


def test_the_scan_finds_a_missing_f() -> None:
    bad = ('def f(x):\n    raise ValueError(f"bad {x}: " + "known: {\', \'.join(x)}")\n'
           'def g(x):\n    raise ValueError(f"bad {x} "\n        "(known: {x})")\n')
    assert [line for line, _ in unformatted(bad)] == [2, 5]
    good = ('def f(x):\n    raise ValueError(f"bad {x}, braces {{x}}")\n'
            'def g(x):\n    raise ValueError("bad {x}".format(x=x))\n'
            'def h(x):\n    raise ValueError("a mapping {} is empty")\n')
    assert unformatted(good) == []


def test_every_error_message_in_autotune_is_formatted() -> None:
    problems = [f"{path.relative_to(PACKAGE.parent)}:{line}: {text[:80]}"
                for path in sorted(PACKAGE.rglob("*.py")) for line, text in unformatted(path.read_text())]
    assert problems == [], "\n".join(problems)

"""Tier names live in the tier classes: no other module of the package spells one as a string literal."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import autotune
from autotune.tiers import TIERS

ROOT = Path(autotune.__file__).parent
WORDS = {*TIERS.names(), "node-local"}
# (module, literal): count. Each is a word that is not a tier there.
NOT_TIERS = {
    ("pattern.py", "posix"): 1,              # an I/O library (POSIX calls), not the local-disk tier
    ("darshan/_pattern.py", "posix"): 3,     # the I/O library Darshan's POSIX module recorded
    ("model/_settings.py", "posix"): 1,      # the pattern's I/O library
    ("model/_outofsample.py", "posix"): 6,   # the published figures' I/O library
    ("model/_outofsample.py", "lustre"): 3,  # a file system NAMED lustre in the Dell white paper's profile
    ("systems/_fsparse.py", "lustre"): 2,    # the kernel's file-system type (statfs magic, network types)
    ("systems/_sitewrite.py", "node-local"): 1,  # a mount's scope in the site listing, not a tier
}


def literals() -> Counter[tuple[str, str]]:
    found: Counter[tuple[str, str]] = Counter()
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("tiers/"):
            continue
        for node in ast.walk(ast.parse(path.read_text(), rel)):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in WORDS:
                found[(rel, node.value)] += 1
    return found


def test_no_tier_name_outside_the_tiers() -> None:
    extra = {k: n for k, n in literals().items() if n > NOT_TIERS.get(k, 0)}
    assert not extra, f"tier names spelled outside autotune/tiers (ask the tier instead): {extra}"


def test_the_exceptions_are_still_there() -> None:
    assert literals() == Counter(NOT_TIERS)  # a stale exception would let a real literal in later

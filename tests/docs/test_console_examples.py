"""The docs' ```console examples run, in a scratch directory with a copy of experiments/campaigns/, and print what they show.

A block is a list of commands, each followed by the lines it must print (stdout and stderr together). An
expected line matches an output line that contains it, in order; ``...`` inside a line matches anything,
and a line that is only ``...`` stands for lines left out. Only ``autotune`` commands are allowed (no shell).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^```console[ \t]*\n(.*?)^```[ \t]*$", re.M | re.S)


@dataclass
class Command:
    source: str  # "FILE:LINE"
    argv: list[str]
    expected: list[str] = field(default_factory=list)


def commands(path: Path) -> list[Command]:
    """Every ``$ autotune ...`` line of a Markdown file's console blocks, with the output lines after it."""
    text = path.read_text(encoding="utf-8")
    out: list[Command] = []
    for block in FENCE.finditer(text):
        first = text.count("\n", 0, block.start(1)) + 1
        for i, line in enumerate(block.group(1).splitlines()):
            if line.startswith("$ "):
                argv = shlex.split(line[2:], comments=True)
                if not argv or argv[0] != "autotune":
                    raise ValueError(f"{path}:{first + i}: a console example runs autotune only, got {line!r}")
                out.append(Command(f"{path.name}:{first + i}", argv[1:]))
            elif line.strip() and out:
                out[-1].expected.append(line.strip())
            elif line.strip():
                raise ValueError(f"{path}:{first + i}: output before any '$ autotune' command")
    return out


def _line_pattern(expected: str) -> re.Pattern[str]:
    return re.compile(".*".join(re.escape(part.strip()) for part in expected.split("...")))


def missing(expected: list[str], output: str) -> str | None:
    """The first expected line not found (in order) in ``output``, or None when all are."""
    lines = output.splitlines()
    pos = 0
    for want in expected:
        if want == "...":
            continue
        pattern = _line_pattern(want)
        while pos < len(lines) and not pattern.search(lines[pos]):
            pos += 1
        if pos == len(lines):
            return want
        pos += 1
    return None

PAGES = sorted([REPO / "README.md", *(REPO / "docs").rglob("*.md")])
WITH_EXAMPLES = [p for p in PAGES if commands(p)]


def test_the_manual_has_runnable_examples() -> None:
    names = {p.relative_to(REPO).as_posix() for p in WITH_EXAMPLES}
    assert {"README.md", "docs/guide/getting-started.md", "docs/guide/spaces-and-rules.md"} <= names


def test_matching_rules() -> None:
    out = "trial 0\ncampaign x: 8 trials run (0 failed)\n  lustre.stripe_count = 48\n"
    assert missing(["campaign x: ... trials run (0 failed)", "...", "lustre.stripe_count = 48"], out) is None
    assert missing(["lustre.stripe_count = 48", "campaign x"], out) == "campaign x"  # order matters
    assert missing(["lustre.stripe_count = 56"], out) == "lustre.stripe_count = 56"


def _run(cmd: Command, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
           "AUTOTUNE_CACHE_DIR": str(cwd / ".cache")}
    return subprocess.run([sys.executable, "-m", "autotune.cli", *cmd.argv], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.slow
@pytest.mark.parametrize("page", WITH_EXAMPLES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_console_examples_print_what_the_docs_show(page: Path, tmp_path: Path) -> None:
    shutil.copytree(REPO / "experiments" / "campaigns", tmp_path / "experiments" / "campaigns",
                    ignore=shutil.ignore_patterns("checkpoint"))
    for cmd in commands(page):
        res = _run(cmd, tmp_path)
        output = res.stdout + res.stderr
        assert res.returncode == 0, f"{cmd.source}: autotune {' '.join(cmd.argv)} exited {res.returncode}:\n{output}"
        gone = missing(cmd.expected, output)
        assert gone is None, f"{cmd.source}: expected line not printed: {gone!r}\n--- output:\n{output}"

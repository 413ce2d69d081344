"""Every usage error of the argument parser is one line naming the flag and the value, exit 2 (no usage block)."""

from __future__ import annotations

from typing import Any

import pytest

from autotune.cli import main


@pytest.mark.parametrize("argv, names", [
    (["tell", "c.yaml", "--value", "0x10"], ["--value", "'0x10'"]),
    (["ask", "c.yaml", "--expire", "-5s"], ["--expire", "'-5s'", "--expire=-5s"]),
    (["ask", "c.yaml", "--format", "xml"], ["--format", "'xml'"]),
    (["tune", "c.yaml", "--trials"], ["--trials", "no value given"]),
    (["tune", "c.yaml", "--trials", "abc"], ["--trials", "'abc'"]),
    (["status", "c.yaml", "--bogus", "1"], ["--bogus"]),
    (["nosuchcommand"], ["'nosuchcommand'"]),
    (["tell", "c.yaml", "--value", "1\x1b[2J"], ["--value", "\\x1b"]),
])
def test_a_usage_error_is_one_line(argv: list[str], names: list[str], capsys: Any) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "usage:" not in err, err
    assert all(n in err for n in names), err


def test_hints_still_never_fails_on_bad_arguments(capsys: Any) -> None:
    assert main(["hints", "--nope"]) == 0
    assert capsys.readouterr().err.count("usage:") == 0

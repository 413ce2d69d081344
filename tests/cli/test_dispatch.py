"""The parser names each command's handler (``"module:function"``); ``_main`` imports it only when the command runs.
Every name resolves, and a ``hints`` whose handler cannot load still answers with the defaults."""

from __future__ import annotations

import argparse
from typing import Any

import pytest

from autotune.cli import _main, build_parser, main


def _leaves(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        return [(path, parser.get_default("run"))]
    return [leaf for name, p in subs[0].choices.items() for leaf in _leaves(p, (*path, name))]


def test_every_command_names_a_handler_that_resolves_to_a_function() -> None:
    leaves = _leaves(build_parser())
    assert len(leaves) == 18  # init, tune, check, status, export, space, compare, report, model x3, ask, tell, hints,
    # store serve, submit, site x2
    for path, name in leaves:
        assert isinstance(name, str) and name.startswith("autotune.cli._") and ":" in name, path
        assert callable(_main.resolve(name)), path


def test_hints_whose_handler_cannot_load_keeps_the_defaults(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    def broken(name: str) -> Any:
        raise ImportError(f"cannot import {name}")

    monkeypatch.setattr(_main, "resolve", broken)
    assert main(["hints", "c.yaml"]) == 0
    out, err = capsys.readouterr()
    assert out == "# defaults: nothing to set\n"
    assert "cannot load the hints (ImportError: cannot import autotune.cli._service:cmd_hints)" in err
    assert main(["space", "c.yaml"]) == 1  # any other command: an internal error, as before

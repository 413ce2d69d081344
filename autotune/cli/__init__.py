"""The ``autotune`` command. ``_parsers`` defines every subcommand's arguments (light: no campaign machinery) and
names its handler, ``"module:function"`` in a handler module (``_tune``, ``_inspect``, ``_service``, ...) that
``_main`` imports only when that command runs; a handler parses nothing, calls the packages and prints."""

from autotune.cli._main import build_parser, main

__all__ = ["build_parser", "main"]

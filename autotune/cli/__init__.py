"""The ``autotune`` command. One module per subcommand (``_tune``, ``_inspect``, ``_compare``, ``_model``);
each has ``register(subparsers)`` and sets ``run(args, argv) -> exit code``. The work is in the packages."""

from autotune.cli._main import build_parser, main

__all__ = ["build_parser", "main"]

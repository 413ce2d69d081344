"""Parser assembly, dispatch and the one place that turns exceptions into exit codes (2: bad input, 130:
interrupted). The parser is light (``_parsers``); the command's handler module is imported here, by the name its
parser declares, only when that command runs."""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from typing import ClassVar, NoReturn

from autotune._extras import require
from autotune._yaml import plain_text
from autotune.cli._errors import describe, guard_stdout, hints_defaults
from autotune.cli._options import resolve
from autotune.cli._parsers import COMMANDS
from autotune.errors import AutotuneError


class _Parser(argparse.ArgumentParser):
    """argparse with usage errors on one line naming the flag and the value (no usage block), exit 2;
    control characters of the arguments are shown escaped."""

    argv: ClassVar[list[str]] = []  # the command line being parsed (to name a value argparse did not take)

    def error(self, message: str) -> NoReturn:
        message = _name_the_value(message, self.argv)
        text = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in message)
        self.exit(2, f"{self.prog}: error: {text} (`{self.prog} --help` shows the usage)\n")


_NO_VALUE = re.compile(r"^argument (?:\S+/)?(--?[\w-]+): expected one argument$")


def _name_the_value(message: str, argv: list[str]) -> str:
    """``--expire -5s``: argparse takes ``-5s`` for an option and says only "expected one argument"."""
    m = _NO_VALUE.match(message)
    if m is None:
        return message
    flag = m[1]
    given = [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == flag or (m[0].startswith(f"argument {a}/"))]
    if not given:
        return f"argument {flag}: no value given"
    return f"argument {flag}: {given[-1]!r} was taken for an option, not a value (write {flag}={given[-1]})"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="autotune", description="Bayesian tuning of parallel-I/O settings.")
    sub = parser.add_subparsers(dest="cmd", required=True)
    for register in COMMANDS:
        register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; output to a closed pipe (`autotune ... | head`) is dropped quietly."""
    with guard_stdout():
        return _run(list(sys.argv[1:] if argv is None else argv))


def _run(argv: list[str]) -> int:
    _Parser.argv = argv
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:
        if argv[:1] == ["hints"] and exc.code not in (0, None):  # a job script never breaks on `hints`
            return hints_defaults("bad arguments (see the error above)")
        raise
    try:
        for arg in argv:  # a path or value with a newline would break every line that prints it
            plain_text(arg, "command line", "an argument")
        if args.needs is not None:  # an optional extra the command needs: said before anything runs
            require(*args.needs)
        return int(resolve(args.run)(args, argv))
    except AutotuneError as exc:
        if args.cmd == "hints":  # a job script never breaks on `hints`
            return hints_defaults(str(exc))
        print(f"autotune: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("autotune: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if args.cmd == "hints":  # its handler could not be loaded (it answers every other failure itself)
            return hints_defaults(f"cannot load the hints ({type(exc).__name__}: {exc})")
        if os.environ.get("AUTOTUNE_DEBUG"):
            raise
        line = describe(exc)  # a full/read-only disk, a corrupt or unreachable store: not a bug
        if line is not None:
            print(f"autotune: error: {' '.join(line.split())}", file=sys.stderr)
            return 2
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        print(f"autotune: internal error: {type(exc).__name__}: {first} (AUTOTUNE_DEBUG=1 shows the traceback)",
              file=sys.stderr)
        return 1

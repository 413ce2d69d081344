"""``python -m autotune.model calibrate`` until the CLI wires ``autotune model calibrate``."""

from __future__ import annotations

import sys

from autotune.model._calibrate import main


def run(argv: list[str]) -> int:
    if not argv or argv[0] != "calibrate":
        sys.stderr.write("usage: python -m autotune.model calibrate\n")
        return 2
    return main(argv[1:])


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))

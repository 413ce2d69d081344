"""Helpers of the robustness tests: run the CLI in-process and check the outcome is clean."""

from __future__ import annotations

import contextlib
import io
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from autotune.cli import main


@dataclass
class Outcome:
    rc: int
    out: str
    err: str


def run_cli(*argv: str) -> Outcome:
    """``autotune ARGV`` in this process (argparse exits are caught), with stdout and stderr captured."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(list(argv))
        except SystemExit as exc:  # argparse: usage errors are exit 2
            rc = int(exc.code) if isinstance(exc.code, int) else 2
    return Outcome(rc, out.getvalue(), err.getvalue())


def assert_clean(o: Outcome, *, expect: str | None = None) -> None:
    """Exit 0, or exit 2 with one line on stderr; never a traceback or "internal error".

    Exit 1 is the documented end of a campaign whose every trial failed (one line too).
    """
    assert "Traceback" not in o.err and "internal error" not in o.err, o.err
    assert o.rc in (0, 2) or (o.rc == 1 and "every trial failed" in o.err), (o.rc, o.err)
    if o.rc != 0:
        lines = [ln for ln in o.err.splitlines() if ln.strip() and not ln.startswith("usage:")
                 and not ln.startswith(" ")]
        assert len(lines) == 1, o.err
    if expect is not None:
        assert o.rc == 2 and expect in o.err, (o.rc, o.err)


def model_campaign_data(workdir: Path, **over: Any) -> dict[str, Any]:
    """A campaign on the performance model (no process is run): fast enough to fuzz."""
    data: dict[str, Any] = {
        "name": "probe", "system": "theta", "target": {"filesystem": "projects"},
        "app": {"command": ["ior"], "ranks": 64, "nodes": 4, "metric": {"extractor": "json"},
                "pattern": {"bytes_per_rank": "1MiB", "transfer_size": "1MiB", "io_mode": "collective",
                            "library": "mpiio"}},
        "space": {"use": "lustre-cray", "only": ["lustre.stripe_count", "lustre.stripe_size"]},
        "objective": {"metric": "write_bandwidth_mib_s", "direction": "maximize", "repeats": 1},
        "budget": {"trials": 3}, "sampler": {"name": "tpe", "seed": 1}, "launcher": {"name": "model"},
        "tracking": {"enabled": False}, "workdir": str(workdir),
    }
    data.update(over)
    return data


def write_campaign_yaml(path: Path, data: Any) -> Path:
    path.write_text(yaml.safe_dump(data, sort_keys=False) if not isinstance(data, str) else data)
    return path


PYTHON = sys.executable

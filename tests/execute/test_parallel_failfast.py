"""The parallel loop stops like the serial one when the default configuration fails in every repetition."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Any

import pytest

from autotune.campaign import Runtime, TrialOutcome, parse_campaign, run_trial
from autotune.execute._parallel import ParallelLoop


@pytest.mark.slow
def test_parallel_loop_stops_after_a_failing_default(tmp_path: Path) -> None:
    c = parse_campaign({
        "name": "pf", "system": "local", "space": "local-romio", "workdir": str(tmp_path / "w"),
        "app": {"command": [sys.executable, "-c", "print('bandwidth: 85.4 MiB/s')"], "mpiexec": False, "ranks": 2,
                "metric": {"extractor": "regex", "pattern": "bandwdth: ([0-9.]+)"}},
        "objective": {"metric": "write_bw", "direction": "maximize", "repeats": 1},
        "budget": {"trials": 8}, "sampler": {"name": "random", "seed": 1}, "tracking": {"enabled": False},
    }, tmp_path)
    rt = Runtime.build(c)
    done: dict[int, TrialOutcome] = {}

    def submit(number: int, config: Any, is_default: bool, retry_of: int | None, incumbent: float | None) -> int:
        done[number] = run_trial(rt, number, config, is_default, c.objective.repeats, retry_of=retry_of)
        return number

    def wait(handles: list[int]) -> list[tuple[int, TrialOutcome]]:
        return [(h, done.pop(h)) for h in handles]

    out = io.StringIO()
    result = ParallelLoop(c, runtime=rt, submit=submit, wait=wait, parallel=2, out=out, progress=False).run()
    assert result.stopped_by == "default_failed"
    assert result.summary["trials_run"] == 2  # the default and the trial already running beside it
    assert "closest line: 'bandwidth: 85.4 MiB/s'" in out.getvalue()

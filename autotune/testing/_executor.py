"""The contract every executor passes (tests/execute/test_contracts.py runs it for each registered one)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from autotune.campaign import LoopResult, parse_campaign, ran_trials
from autotune.errors import ConfigError
from autotune.execute import EXECUTORS, BaseExecutor, fs_resource


def square(x: int) -> int:
    """A picklable task for ``map``."""
    return x * x


def model_campaign(tmp: Path, trials: int = 4, **over: Any) -> Any:
    """A small campaign on the performance model (no real I/O), storage in ``tmp``."""
    data: dict[str, Any] = {
        "name": "contract-model", "system": "theta", "target": {"filesystem": "projects"},
        "app": {"command": ["ior"], "ranks": 256, "nodes": 16, "metric": {"extractor": "json"},
                "pattern": {"bytes_per_rank": "1MiB", "transfer_size": "1MiB"}},
        "space": {"use": "lustre-cray", "only": ["lustre.stripe_count", "lustre.stripe_size"]},
        "objective": {"metric": "write_bandwidth_mib_s", "repeats": 2},
        "budget": {"trials": trials}, "sampler": {"name": "tpe", "seed": 1}, "launcher": {"name": "model"},
        "tracking": {"enabled": False}, "workdir": str(tmp / "work"), **over,
    }
    return parse_campaign(data, tmp)


def wrf_model_campaign(tmp: Path, **over: Any) -> Any:
    """WRF-CHEM's history write on Shaheen II's Lustre (KAUST Shaheen II training) on the performance model, storage in memory:
    the model's ridge is aggregators = stripe count. ``over`` replaces top-level keys."""
    data: dict[str, Any] = {
        "name": "wrf", "system": "shaheen2", "target": {"filesystem": "scratch"},
        "app": {"command": ["wrf"], "ranks": 1280, "nodes": 40, "metric": {"extractor": "json"},
                "pattern": {"bytes_per_rank": 1134375, "transfer_size": 11343, "layout": "strided",
                            "library": "pnetcdf"}},
        "space": {"use": "lustre-cray", "only": ["lustre.stripe_count", "lustre.stripe_size", "mpiio.cb_nodes",
                                                  "mpiio.romio_cb_write"]},
        "objective": {"metric": "write_bandwidth_mib_s"}, "launcher": {"name": "model"}, "storage": ":memory:",
        "tracking": {"enabled": False}, "workdir": str(tmp / "work"),
    }
    data.update(over)
    return parse_campaign(data, tmp)


class ExecutorContract:
    """Subclass in a test module; provide the ``executor`` fixture (an open executor, closed by the fixture)."""

    def test_is_registered(self, executor: BaseExecutor) -> None:
        assert EXECUTORS.get(executor.name) is type(executor)

    def test_map_keeps_order_and_reports_each_result(self, executor: BaseExecutor) -> None:
        seen: list[tuple[int, int]] = []
        progress: list[tuple[int, int]] = []
        items = [3, -1, 4, 1, -5]
        res = executor.map(square, items, resources=[fs_resource("a", "b"), None, None, fs_resource("a", "b"), None],
                           progress=lambda done, total: progress.append((done, total)),
                           on_result=lambda i, r: seen.append((i, r)))
        assert res == [9, 1, 16, 1, 25]
        assert sorted(seen) == list(enumerate(res))
        assert progress[-1] == (5, 5) and len(progress) == 5

    def test_runs_a_campaign_to_its_budget_and_resumes(self, executor: BaseExecutor, tmp_path: Path) -> None:
        c = model_campaign(tmp_path, trials=3)
        with open(os.devnull, "w") as out:
            first = executor.run_campaign(c, out=out)
            assert isinstance(first, LoopResult) and first.stopped_by == "trials"
            assert len(ran_trials(first.study)) == 3 and first.summary["best_value"] > 0
            more = c.with_overrides(budget=c.budget.__class__(5, None, c.budget.run_timeout))
            again = executor.run_campaign(more, out=out)  # same storage: resumed, two more
        assert len(ran_trials(again.study)) == 5 and again.trials_run_now == 2

    def test_unknown_option_is_one_line(self, executor: BaseExecutor) -> None:
        with pytest.raises(ConfigError, match="unknown key 'frobnicate'") as err:
            type(executor)({"frobnicate": 1})
        assert "\n" not in str(err.value)

    def test_close_is_idempotent(self, executor: BaseExecutor) -> None:
        executor.close()
        executor.close()

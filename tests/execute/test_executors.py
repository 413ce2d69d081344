"""Executors: registry, serial path, and a real local Ray instance (per-file-system resource)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from autotune.campaign import LoopResult, parse_campaign, ran_trials
from autotune.errors import ConfigError, RegistryError
from autotune.execute import (
    RayExecutor,
    SerialExecutor,
    campaign_resource,
    executor_names,
    fs_resource,
    get_executor,
    make_executor,
    run_with_executor,
)


def model_campaign(tmp: Path, **over: Any) -> Any:
    data: dict[str, Any] = {
        "name": "exec-model", "system": "theta", "target": {"filesystem": "projects"},
        "app": {"command": ["ior"], "ranks": 4096, "nodes": 256, "metric": {"extractor": "json"},
                "pattern": {"bytes_per_rank": "1MiB", "transfer_size": "1MiB"}},
        "space": {"use": "lustre-cray", "only": ["lustre.stripe_count", "lustre.stripe_size"]},
        "objective": {"metric": "write_bandwidth_mib_s", "repeats": 2},
        "budget": {"trials": 6}, "sampler": {"name": "tpe", "seed": 1}, "launcher": {"name": "model"},
        "storage": ":memory:", "tracking": {"enabled": False}, "workdir": str(tmp / "work"),
    }
    data.update(over)
    return parse_campaign(data, tmp)


def test_registry_and_unknown_names_fail_loudly() -> None:
    assert {"serial", "ray"} <= set(executor_names())
    assert type(get_executor("serial")) is SerialExecutor
    with pytest.raises(RegistryError, match="unknown executor 'dask'"):
        get_executor("dask")
    with pytest.raises(ConfigError, match=r"executor: unknown key 'nodes' \(allowed: address, "):
        RayExecutor({"nodes": 3})
    assert isinstance(make_executor("serial"), SerialExecutor)


def test_fs_resource_names(tmp_path: Path) -> None:
    assert fs_resource("cori", "bb") != fs_resource("cori", "scratch")
    assert fs_resource("a-b", "c.d").replace("autotune_fs_", "").isidentifier()
    c = model_campaign(tmp_path)
    assert campaign_resource(c) is None  # model campaigns do no real I/O
    real = c.with_overrides(launcher={"name": "local"})
    assert campaign_resource(real) == fs_resource("theta", "projects")


def test_serial_executor_runs_a_campaign_and_maps(tmp_path: Path) -> None:
    c = model_campaign(tmp_path, executor={"name": "serial"})
    res = run_with_executor(c)
    assert isinstance(res, LoopResult) and len(ran_trials(res.study)) == 6
    assert SerialExecutor().map(abs, [-1, 2, -3]) == [1, 2, 3]


def _sleep_task(item: tuple[str, float]) -> tuple[str, float, float]:
    start = time.time()
    time.sleep(item[1])
    return item[0], start, time.time()


def _overlap(a: tuple[str, float, float], b: tuple[str, float, float]) -> bool:
    return a[1] < b[2] and b[1] < a[2]


@pytest.mark.ray
@pytest.mark.slow
def test_ray_local_campaign_and_file_system_lock(tmp_path: Path) -> None:
    c = model_campaign(tmp_path, executor={"name": "ray", "num_cpus": 2, "parallel": 2})
    with RayExecutor({"num_cpus": 2, "parallel": 2}) as ex:
        res = ex.run_campaign(c)
        assert isinstance(res, LoopResult) and len(ran_trials(res.study)) == 6
        assert res.summary and res.stopped_by == "trials"
        import ray

        assert ray.cluster_resources().get(fs_resource("cori", "bb")) == 1.0
        lustre, bb = fs_resource("cori", "scratch"), fs_resource("cori", "bb")
        items = [("l1", 1.0), ("l2", 1.0), ("b1", 1.0)]
        out = ex.map(_sleep_task, items, resources=[lustre, lustre, bb])
        by = {o[0]: o for o in out}
        assert not _overlap(by["l1"], by["l2"])  # same file system: never at the same time
        assert _overlap(by["l1"], by["b1"]) or _overlap(by["l2"], by["b1"])  # different targets may

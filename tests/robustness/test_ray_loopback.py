"""`--executor ray`: everything the private local Ray starts listens on the loopback interface only."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from autotune.testing import descendants, is_loopback, listeners

pytest.importorskip("ray", reason="the ray extra is not installed (pip install 'autotune[ray]')")
pytestmark = pytest.mark.ray


@pytest.mark.slow
def test_ray_campaign_listens_on_loopback_only(tmp_path: Path) -> None:
    from autotune.execute import RayExecutor

    campaign = {
        "name": "ray-loopback", "system": "theta", "target": {"filesystem": "projects"},
        "app": {"command": ["ior"], "ranks": 64, "nodes": 4, "metric": {"extractor": "json"},
                "pattern": {"bytes_per_rank": "1MiB", "transfer_size": "1MiB"}},
        "space": {"use": "lustre-cray", "only": ["lustre.stripe_count"]},
        "objective": {"metric": "write_bandwidth_mib_s", "repeats": 1},
        "budget": {"trials": 3}, "sampler": {"name": "tpe", "seed": 1}, "launcher": "model",
        "tracking": {"enabled": False}, "workdir": str(tmp_path / "work"),
        "executor": {"name": "ray", "num_cpus": 1, "parallel": 1},
    }
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(campaign))
    from autotune.campaign import Runtime, load_campaign

    c = load_campaign(path)
    import ray

    if ray.is_initialized():  # another test's instance: this test judges the one its campaign starts
        ray.shutdown()
    # Processes this test did not start (e.g. another test's Ray head re-parented to this process, which a
    # campaign makes a child subreaper) are not this campaign's: only the new ones are judged.
    before = descendants(os.getpid())
    ex = RayExecutor({"num_cpus": 1, "parallel": 1})
    ex.start()
    try:
        result = ex.run_campaign(c, Runtime.build(c))
        assert len(result.study.trials) >= 3
        found = listeners(descendants(os.getpid()) - before)
        assert found, "the Ray processes should hold listening sockets (the check would be empty otherwise)"
        exposed = [(a, p, pid) for a, p, pid in found if not is_loopback(a)]
        assert not exposed, f"listening beyond loopback: {exposed}"
    finally:
        ex.close()

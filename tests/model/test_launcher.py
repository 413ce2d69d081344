"""The model launcher: registered as "model", seeded per repetition, failures as results."""

from __future__ import annotations

import json
from pathlib import Path

from autotune.hints import Settings
from autotune.launch import AppSpec, RunRequest, get_launcher
from autotune.model import _scenarios as scenarios
from autotune.pattern import IOPattern


def request(tmp: Path, config: dict[str, object], rep: int = 0, pattern: IOPattern = scenarios.THETA_IOR,
            system: str = "theta", fs: str = "projects") -> RunRequest:
    prof = scenarios.system(system)
    app = AppSpec(name="ior", pattern=pattern, command=("ior",))
    return RunRequest(campaign="c", trial=1, repetition=rep, app=app, system=prof, fs=prof.filesystem(fs),
                      config=config, settings=Settings(info={}), run_dir=tmp / "run", data_dir=tmp / "data",
                      timeout=10.0, seed=3)


def test_model_launcher_returns_a_json_record(tmp_path: Path) -> None:
    launcher = get_launcher("model")
    res = launcher.run(request(tmp_path, {"lustre.stripe_count": 48}))
    assert res.ok, res.error
    rec = json.loads(res.stdout.strip().splitlines()[-1])
    assert rec["kernel"] == "model" and rec["metrics"]["bandwidth_mib_s"] > 0
    assert res.wall_seconds == rec["metrics"]["seconds"] and "bound by" in res.stderr
    assert not (tmp_path / "data").exists()
    assert "model theta:projects" in launcher.describe(request(tmp_path, {}))


def test_repetitions_differ_but_reruns_repeat(tmp_path: Path) -> None:
    launcher = get_launcher("model")
    a = launcher.run(request(tmp_path, {}, rep=0)).stdout
    b = launcher.run(request(tmp_path, {}, rep=1)).stdout
    assert a != b and a == launcher.run(request(tmp_path, {}, rep=0)).stdout
    quiet = get_launcher("model", {"noise": False})
    assert quiet.run(request(tmp_path, {}, rep=0)).stdout == quiet.run(request(tmp_path, {}, rep=1)).stdout


def test_rejected_configuration_is_a_failed_result(tmp_path: Path) -> None:
    big = IOPattern(ranks=64, nodes=16, bytes_per_rank=4 << 30)
    res = get_launcher("model").run(request(tmp_path, {"bb.nodes": 1}, pattern=big, system="cori", fs="bb"))
    assert not res.ok and res.error and "\n" not in res.error

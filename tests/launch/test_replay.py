"""The replay launcher: repetitions drawn from a recorded sweep, an unrecorded configuration a failed run."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from autotune.campaign import CampaignLoop, load_campaign, ran_trials
from autotune.errors import ConfigError
from autotune.launch import LAUNCHERS, RunRequest, RunResult
from autotune.launch._replay import Recording, ReplayLauncher
from autotune.systems import load_system
from autotune.testing import RunContract, command_request

# cb_write x cb_nodes over 2 ranks, three repetitions each (one failed run for enable/2).
SWEEP = """# metric: write_bandwidth_mib_s
# machine: test
config,value,wall_s
mpiio.cb_nodes=1;mpiio.romio_cb_write=automatic,100,1.0
mpiio.cb_nodes=1;mpiio.romio_cb_write=automatic,110,1.1
mpiio.cb_nodes=1;mpiio.romio_cb_write=automatic,90,0.9
mpiio.cb_nodes=2;mpiio.romio_cb_write=automatic,150,1.0
mpiio.cb_nodes=2;mpiio.romio_cb_write=automatic,160,1.0
mpiio.cb_nodes=2;mpiio.romio_cb_write=automatic,140,1.0
mpiio.cb_nodes=1;mpiio.romio_cb_write=enable,80,1.0
mpiio.cb_nodes=1;mpiio.romio_cb_write=enable,85,1.0
mpiio.cb_nodes=1;mpiio.romio_cb_write=enable,75,1.0
mpiio.cb_nodes=2;mpiio.romio_cb_write=enable,,2.0
mpiio.cb_nodes=2;mpiio.romio_cb_write=enable,,2.0
mpiio.cb_nodes=2;mpiio.romio_cb_write=enable,,2.0
mpiio.cb_nodes=1;mpiio.romio_cb_write=disable,400,0.5
mpiio.cb_nodes=1;mpiio.romio_cb_write=disable,420,0.5
mpiio.cb_nodes=1;mpiio.romio_cb_write=disable,380,0.5
mpiio.cb_nodes=2;mpiio.romio_cb_write=disable,410,0.5
mpiio.cb_nodes=2;mpiio.romio_cb_write=disable,390,0.5
mpiio.cb_nodes=2;mpiio.romio_cb_write=disable,400,0.5
"""


@pytest.fixture
def sweep(tmp_path: Path) -> Path:
    path = tmp_path / "sweep.csv"
    path.write_text(SWEEP)
    return path


def request(tmp: Path, config: dict[str, object], repetition: int = 0, trial: int = 0) -> RunRequest:
    return command_request(tmp, ["unused"], config=config, repetition=repetition, trial=trial, ranks=2)


class TestReplayContract(RunContract):
    @pytest.fixture
    def launcher(self, sweep: Path) -> ReplayLauncher:
        return ReplayLauncher({"surface": str(sweep)})

    def ok_request(self, tmp: Path, repetition: int = 0) -> RunRequest:
        return request(tmp, {"mpiio.romio_cb_write": "disable", "mpiio.cb_nodes": 2}, repetition)

    def failing_request(self, tmp: Path) -> RunRequest:
        return request(tmp, {"mpiio.romio_cb_write": "disable", "mpiio.cb_nodes": 4})


def test_registered() -> None:
    assert LAUNCHERS.get("replay") is ReplayLauncher


def test_draws_only_recorded_values_and_the_same_request_draws_the_same(sweep: Path, tmp_path: Path) -> None:
    launcher = ReplayLauncher({"surface": str(sweep)})
    cfg = {"mpiio.romio_cb_write": "automatic", "mpiio.cb_nodes": 1}
    values = [json.loads(launcher.run(request(tmp_path, cfg, r, t)).stdout)["metrics"]["write_bandwidth_mib_s"]
              for t in range(10) for r in range(3)]
    assert set(values) == {100.0, 110.0, 90.0}
    again = launcher.run(request(tmp_path, cfg, 2, 9)).stdout
    assert json.loads(again)["metrics"]["write_bandwidth_mib_s"] == values[-1]
    other_seed = ReplayLauncher({"surface": str(sweep), "seed": 5})
    drawn = [json.loads(other_seed.run(request(tmp_path, cfg, r, t)).stdout)["metrics"]["write_bandwidth_mib_s"]
             for t in range(10) for r in range(3)]
    assert drawn != values


@pytest.mark.parametrize(("config", "says"), [
    ({"mpiio.romio_cb_write": "disable", "mpiio.cb_nodes": 4}, "mpiio.cb_nodes=4 was not recorded"),
    ({"mpiio.romio_cb_write": "disable", "mpiio.cb_nodes": 1, "hdf5.alignment": 1}, "hdf5.alignment was not varied"),
    ({"mpiio.romio_cb_write": "disable"}, "lacks mpiio.cb_nodes"),
    ({"mpiio.romio_cb_write": "enable", "mpiio.cb_nodes": 2}, "recorded run of"),
])
def test_an_unrecorded_configuration_is_a_failed_run_saying_why(sweep: Path, tmp_path: Path,
                                                                 config: dict[str, object], says: str) -> None:
    res = ReplayLauncher({"surface": str(sweep)}).run(request(tmp_path, config))
    assert not res.ok and res.error and says in res.error and "\n" not in res.error


@pytest.mark.parametrize(("options", "says"), [
    ({}, "launcher.surface: None is not the path"),
    ({"surface": "x.csv", "seed": "a"}, "launcher.seed: 'a' is not an integer"),
    ({"surface": "x.csv", "speed": 1}, "speed"),
])
def test_bad_options_are_one_line_errors(options: dict[str, object], says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        ReplayLauncher(options)


@pytest.mark.parametrize(("text", "says"), [
    ("a,b\n1,2\n", "is not a recording"),
    ("config,value\nmpiio.cb_nodes=1,3\n", "no '# metric: NAME' header"),
    ("# metric: m\nconfig,value\nmpiio.cb_nodes=1,fast\n", "value 'fast' is not a number"),
])
def test_a_bad_recording_is_a_one_line_error(tmp_path: Path, text: str, says: str) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text(text)
    with pytest.raises(ConfigError, match=says):
        Recording.load(bad)
    with pytest.raises(ConfigError, match="cannot read recording"):
        Recording.load(tmp_path / "missing.csv")


def test_medians_are_the_noiseless_truth(sweep: Path) -> None:
    med = Recording.load(sweep).medians()
    assert med["mpiio.cb_nodes=1;mpiio.romio_cb_write=disable"] == 400.0
    assert "mpiio.cb_nodes=2;mpiio.romio_cb_write=enable" not in med  # every run failed


def test_a_replay_campaign_finds_the_recorded_best(sweep: Path, tmp_path: Path) -> None:
    data = {
        "name": "replayed",
        "app": {"kernel": "ior", "ranks": 2, "args": {"block_size": "1MiB", "phases": ["write"]}},
        "system": "local", "space": {"use": "local-romio", "only": ["mpiio.romio_cb_write", "mpiio.cb_nodes"]},
        "objective": {"metric": "write_bandwidth_mib_s", "repeats": 3, "aggregate": "median"},
        "budget": {"trials": 7}, "sampler": {"name": "grid", "seed": 1},
        "launcher": {"name": "replay", "surface": sweep.name},  # relative to the campaign file
        "workdir": str(tmp_path / "work"), "tracking": {"enabled": False},
    }
    path = tmp_path / "campaign.yaml"
    path.write_text(yaml.safe_dump(data))
    res = CampaignLoop(load_campaign(path), progress=False, out=open(os.devnull, "w")).run()
    trials = ran_trials(res.study)
    assert res.study.best_trial.user_attrs["config"]["mpiio.romio_cb_write"] == "disable"
    assert res.study.best_value == 400.0
    failed = [t for t in res.study.trials if t.user_attrs.get("config", {}).get("mpiio.romio_cb_write") == "enable"
              and t.user_attrs["config"].get("mpiio.cb_nodes") == 2]
    assert failed and failed[0].value is None
    assert len(trials) == 5  # 3 x 2 configurations; with collective buffering disabled the 2 aggregator counts are one run


def test_the_shipped_example_replays_a_committed_sweep(tmp_path: Path) -> None:
    example = Path(__file__).resolve().parents[2] / "experiments" / "campaigns" / "replay-ior-strided.yaml"
    c = load_campaign(example)
    c = c.with_overrides(workdir=tmp_path / "w", budget=replace(c.budget, trials=4))
    res = CampaignLoop(c, progress=False, out=open(os.devnull, "w")).run()
    assert len(ran_trials(res.study)) == 4 and all(t.value for t in ran_trials(res.study))
    assert "confirmation" in res.study.user_attrs


def test_a_recorded_stripe_count_of_minus_one_replays_as_the_target_s_ost_count(tmp_path: Path) -> None:
    """Sweeps record "all OSTs" as lfs(1) writes it (-1: Durham COSMA6's benchio sweeps do); a space binds -1 to
    the target's OST count, so the replay reads the recording the same way (Theta's 56 here)."""
    path = tmp_path / "striped.csv"
    path.write_text("# metric: write_bandwidth_mib_s\nconfig,value,wall_s\n"
                    "lustre.stripe_count=-1,500,1.0\nlustre.stripe_count=8,300,1.0\n")
    theta = load_system("theta")
    launcher = ReplayLauncher({"surface": str(path)})

    def drawn(count: int) -> RunResult:
        return launcher.run(replace(request(tmp_path, {"lustre.stripe_count": count}), system=theta,
                                    fs=theta.filesystem("projects")))

    assert json.loads(drawn(56).stdout)["metrics"]["write_bandwidth_mib_s"] == 500.0
    assert json.loads(drawn(8).stdout)["metrics"]["write_bandwidth_mib_s"] == 300.0
    assert not drawn(16).ok and "lustre.stripe_count=16 was not recorded" in (drawn(16).error or "")

"""An end-to-end campaign of the IOR-like kernel under each MPI of this machine, and `check` printing what took
effect in three categories."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from autotune.campaign import CampaignLoop, parse_campaign, ran_trials
from autotune.testing import MISSING_OPENMPI, Stack, local_system_file, mpich_stack, openmpi_stack

REPO = Path(__file__).resolve().parents[2]


def stack_named(name: str) -> Stack:
    stack = mpich_stack() if name == "mpich" else openmpi_stack()
    if stack is None:
        pytest.skip(MISSING_OPENMPI)
    return stack


def campaign_data(tmp_path: Path, stack: Stack, trials: int = 5) -> dict[str, Any]:
    return {
        "name": f"ior-{stack.name}",
        "app": {"kernel": "ior", "ranks": 4, "args": {"block_size": "2MiB", "transfer_size": "512KiB",
                                                       "layout": "strided", "phases": ["write"]}},
        "system": str(local_system_file(tmp_path, stack.name)),
        "target": {"filesystem": "disk"},
        "space": "local-openmpi" if stack.name == "openmpi" else "local-romio",
        "objective": {"metric": "write_bandwidth_mib_s", "direction": "maximize", "repeats": 1, "confirm": 0},
        "budget": {"trials": trials, "run_timeout": "120s"},
        "sampler": {"name": "autotune", "seed": 3},
        "launcher": {"name": "local", "mpiexec": stack.mpiexec, "mpiexec_args": list(stack.mpiexec_args),
                     "python": stack.python},
        "tracking": {"enabled": False},
        "workdir": str(tmp_path / "work"),
    }


@pytest.mark.slow
@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_a_campaign_runs_and_records_what_took_effect(tmp_path: Path, mpi: str, monkeypatch: pytest.MonkeyPatch) -> None:
    stack = stack_named(mpi)
    for key, value in stack.environ().items():
        if key.startswith(("OMPI_", "PYTHONPATH")):
            monkeypatch.setenv(key, value)
    c = parse_campaign(campaign_data(tmp_path, stack), REPO / "experiments" / "campaigns")
    res = CampaignLoop(c, progress=False, out=open(os.devnull, "w")).run()
    trials = ran_trials(res.study)
    assert len(trials) == 5
    assert all(t.state.name == "COMPLETE" for t in trials), [t.user_attrs.get("error") for t in trials]
    tuned = [t for t in trials if not t.user_attrs.get("is_default")]
    for t in tuned:
        verification = t.user_attrs["verification"]
        assert verification and {v["state"] for v in verification.values()} <= {"in effect", "not in effect",
                                                                                 "not verifiable"}
        assert all(v["how"] for v in verification.values())
        assert t.user_attrs["hints_took_effect"] in (True, False, None)
        command = (Path(c.workdir) / "runs" / c.study / f"trial-{t.number:04d}" / "rep-0" / "command.txt").read_text()
        if mpi == "openmpi":
            assert "OMPI_MCA_io=" in command  # every Open MPI trial names its io component
            # a ROMIO hint is never claimed in effect while OMPIO runs
            if t.user_attrs["config"]["ompi.io"] == "ompio":
                assert all(v["state"] != "in effect" for k, v in verification.items() if k.startswith("romio_"))
        else:
            assert "OMPI_MCA_" not in command
    assert "hints_text" in res.summary


@pytest.mark.slow
def test_check_under_ompio_never_calls_a_romio_hint_in_effect(tmp_path: Path) -> None:
    stack = stack_named("openmpi")
    import yaml

    data = campaign_data(tmp_path, stack)
    data["space"] = {"use": "local-romio", "only": ["mpiio.romio_cb_write", "mpiio.cb_nodes"]}
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(data))
    argv = [sys.executable, "-m", "autotune.cli", "check", str(path), "--config", "mpiio.cb_nodes=2",
            "--config", "mpiio.romio_cb_write=enable"]
    refused = subprocess.run(argv, capture_output=True, text=True, timeout=300, env=stack.environ(), check=False)
    assert refused.returncode == 2 and "mpiio.romio_cb_write: hints that openmpi" in refused.stderr  # as tune would
    assert "fix: `space: local-openmpi`" in refused.stderr
    data["space"] = {"use": "local-openmpi", "only": ["mpiio.romio_cb_write", "mpiio.cb_nodes", "ompi.io"]}
    path.write_text(yaml.safe_dump(data))
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=300, env=stack.environ(), check=False)
    out = proc.stdout
    assert proc.returncode == 0, out + proc.stderr
    assert "hints the MPI library returns (Open MPI echoes the requested keys: this proves nothing):" in out
    verified = out.split("settings verified in effect:")[1].split("settings")[0]
    assert "cb_nodes=2: 2 of 4 ranks wrote" in verified and "romio_cb_write" not in verified
    assert "settings not passed:\n  mpiio.romio_cb_write=enable: a ROMIO hint: OMPIO (ompi.io=ompio) ignores it" in out

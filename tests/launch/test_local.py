from __future__ import annotations

import sys
from pathlib import Path

import pytest

from autotune.errors import ConfigError, RegistryError
from autotune.launch import get_launcher
from autotune.launch._local import LocalLauncher
from autotune.testing import command_request


def test_registry_fails_loudly_on_unknown_names() -> None:
    assert type(get_launcher("local")) is LocalLauncher
    with pytest.raises(RegistryError, match="unknown launcher 'nope'.*known: .*local"):
        get_launcher("nope")


def test_unknown_option_is_rejected() -> None:
    with pytest.raises(ConfigError, match="unknown key 'mpirun'.*allowed: mpiexec, mpiexec_args, python"):
        LocalLauncher({"mpirun": "x"})


def test_missing_command_is_a_failed_run(tmp_path: Path) -> None:
    res = LocalLauncher({}).run(command_request(tmp_path, ["/no/such/binary"]))
    assert not res.ok and "not found" in (res.error or "")


def test_hostile_values_are_never_interpreted_by_a_shell(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    hostile = f"$(touch {marker}); touch {marker} #"
    req = command_request(tmp_path, [sys.executable, "-c", "import sys; print(sys.argv[1])", hostile],
                          config={"mpiio.cb_config_list": f"*:1; touch {marker}"})
    res = LocalLauncher({}).run(req)
    assert res.ok, res.error
    assert res.stdout.strip() == hostile
    assert not marker.exists()


def test_mpiexec_runs_n_ranks(tmp_path: Path) -> None:
    out = tmp_path / "ranks"
    out.mkdir()
    code = "import os, sys; open(os.path.join(sys.argv[1], 'rank-' + os.environ['PMI_RANK']), 'w').close()"
    req = command_request(tmp_path, [sys.executable, "-c", code, str(out)], ranks=2,
                          timeout=180)  # two Python ranks under mpiexec on a loaded 2-core machine can take > 30 s
    req = req.__class__(**{**req.__dict__, "app": req.app.__class__(**{**req.app.__dict__, "mpiexec": True})})
    res = LocalLauncher({}).run(req)
    assert res.ok, res.error
    # each rank leaves a file (their stdout lines may interleave in mpiexec's: "01" then two newlines was seen)
    assert sorted(f.name for f in out.iterdir()) == ["rank-0", "rank-1"]

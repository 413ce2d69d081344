"""Persistent DataWarp reservations (KAUST Shaheen II training): the campaign option, its checks, three kinds of job script."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from autotune.campaign import load_campaign
from autotune.cli import main
from autotune.errors import ConfigError
from autotune.launch._persistent import parse_persistent, script
from autotune.systems import load_system

CORI = load_system("cori")
REPO = Path(__file__).resolve().parents[2]


def _campaign(tmp: Path, persistent: Any, launcher: Any = "slurm") -> Path:
    data = {"name": "persist", "app": {"command": [sys.executable, "-c", "print(1)"], "ranks": 4, "nodes": 1,
                                        "pattern": {"bytes_per_rank": "1GiB", "file_mode": "fpp"}},
            "system": "cori", "target": {"filesystem": "bb", "bb": {"persistent": persistent}},
            "space": "datawarp-cray", "launcher": launcher, "workdir": str(tmp / "w")}
    path = tmp / "c.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_defaults_size_the_reservation_to_the_data() -> None:
    p = parse_persistent({"name": "tune1"}, CORI.filesystem("bb"), 200 * 2**30)
    assert (p.create, p.keep, p.grains, p.capacity, p.pool) == (True, False, 3, "246GiB", "wlm_pool")
    existing = parse_persistent({"name": "theirs", "create": False}, CORI.filesystem("bb"), 1)
    assert existing.keep  # a reservation the campaign did not create is not destroyed unless asked
    assert parse_persistent({"name": "x", "capacity": "100GiB", "pool": "sm_pool"}, CORI.filesystem("bb"), 1).grains == 5


@pytest.mark.parametrize(("value", "message"), [
    ({"name": "a-b"}, "must be a letter then letters, digits or '_'"),
    ({"name": "ok", "colour": 1}, "colour"),
    ({"create": True}, "name"),
    ({"name": "ok", "keep": "yes"}, "keep"),
    ({"name": "ok", "capacity": "1GiB"}, "below the"),
    ({"name": "ok", "pool": "nope"}, "unknown pool 'nope'"),
])
def test_bad_values_are_one_line_errors(value: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_persistent(value, CORI.filesystem("bb"), 50 * 2**30)


def test_campaign_checks_target_and_launcher(tmp_path: Path) -> None:
    c = load_campaign(_campaign(tmp_path, {"name": "tune1"}))
    assert c.persistent is not None and c.persistent.name == "tune1"
    with pytest.raises(ConfigError, match="needs the slurm launcher in job mode"):
        load_campaign(_campaign(tmp_path, {"name": "tune1"}, launcher="local"))
    with pytest.raises(ConfigError, match="launcher.stage_in: not with target.bb.persistent"):
        load_campaign(_campaign(tmp_path, {"name": "tune1"}, launcher={"name": "slurm", "stage_in": "/in"}))
    with pytest.raises(ConfigError, match="mode 'step'"):
        load_campaign(_campaign(tmp_path, {"name": "tune1"}, launcher={"name": "slurm", "mode": "step"}))
    data = yaml.safe_load((tmp_path / "c.yaml").read_text())
    data["target"] = {"filesystem": "scratch", "bb": {"persistent": {"name": "t"}}}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError, match="needs a DataWarp target"):
        load_campaign(tmp_path / "c.yaml")
    data["target"] = {"filesystem": "bb", "bb": {"mode": "x"}}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError, match="target.bb"):
        load_campaign(tmp_path / "c.yaml")


def test_create_and_destroy_scripts(tmp_path: Path) -> None:
    p = parse_persistent({"name": "tune1", "capacity": "600GiB"}, CORI.filesystem("bb"), 1)
    create = script(p, "create", "camp", CORI, {"account": "m1"}, tmp_path)
    assert "#BB create_persistent name=tune1 capacity=656GiB access=striped type=scratch" in create.splitlines()
    assert "#SBATCH --account=m1" in create and "#SBATCH --constraint=haswell" in create
    destroy = script(p, "destroy", "camp", CORI, {"dw_job_striped": "/tmp/x"}, tmp_path)
    assert "#BB destroy_persistent name=tune1" in destroy.splitlines() and 'rm -rf -- "/tmp/x"' in destroy


def test_dry_run_prints_all_three_kinds_of_script(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tune", str(_campaign(tmp_path, {"name": "tune1"})), "--dry-run", "--trials", "3"]) == 0
    out = capsys.readouterr().out
    assert out.index("#BB create_persistent name=tune1") < out.index("#DW persistentdw name=tune1") \
        < out.index("#BB destroy_persistent name=tune1")
    assert out.count("#DW persistentdw name=tune1") == out.count("# ---- trial ") >= 1
    assert "#DW jobdw" not in out and '"${DW_PERSISTENT_STRIPED_tune1:?no DataWarp allocation}"' in out
    assert main(["tune", str(_campaign(tmp_path, {"name": "tune1", "create": False})), "--dry-run", "--trials", "2"]) == 0
    kept = capsys.readouterr().out
    assert "create_persistent" not in kept and "destroy_persistent" not in kept
    assert "no create job: the reservation tune1 is named as existing" in kept

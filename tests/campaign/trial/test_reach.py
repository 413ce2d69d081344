"""Parameters an opaque command cannot receive (HDF5 settings) are not searched unless the app reads them."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from autotune.campaign import Runtime, load_campaign
from autotune.errors import ConfigError


def runtime(tmp_path: Path, app: dict[str, Any], launcher: str = "local") -> Runtime:
    data = {"name": "reach", "app": {"ranks": 2, "pattern": {"library": "hdf5"}, **app}, "system": "local",
            "space": "local-romio", "launcher": {"name": launcher, **({"surface": "x.csv"} if launcher == "replay" else {})},
            "workdir": str(tmp_path / "w"), "tracking": {"enabled": False}}
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(data))
    return Runtime.build(load_campaign(path))


def names(rt: Runtime) -> set[str]:
    return {p.name for p in rt.space.active}


def test_a_command_does_not_get_hdf5_settings_searched(tmp_path: Path) -> None:
    rt = runtime(tmp_path, {"command": [sys.executable, "app.py"]})
    assert "hdf5.alignment" not in names(rt) and "mpiio.romio_cb_write" in names(rt)
    assert any("hdf5.alignment: not searched: a command cannot receive it" in n and "app.reads" in n
               for n in rt.space.notices)


def test_unless_the_campaign_says_the_app_reads_them(tmp_path: Path) -> None:
    assert "hdf5.alignment" in names(runtime(tmp_path, {"command": ["app"], "reads": ["hdf5.alignment"]}))


def test_kernels_and_launchers_that_run_no_command_get_them(tmp_path: Path) -> None:
    assert "hdf5.alignment" in names(runtime(tmp_path, {"kernel": "h5write", "pattern": {}}))
    assert "hdf5.alignment" in names(runtime(tmp_path, {"command": ["model"]}, launcher="replay"))


def test_reads_names_a_known_parameter(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="app.reads: unknown parameter 'hdf5.alignmnt'"):
        runtime(tmp_path, {"command": ["app"], "reads": ["hdf5.alignmnt"]})

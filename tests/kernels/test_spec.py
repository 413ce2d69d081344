"""The kernel registry: arguments checked at load, one-line errors, the command line it builds."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from autotune.campaign import load_campaign
from autotune.errors import ConfigError, RegistryError
from autotune.kernels import KERNELS

REPO = Path(__file__).resolve().parents[2]


def _campaign(tmp_path: Path, app: dict[str, Any]) -> Path:
    p = tmp_path / "c.yaml"
    p.write_text(yaml.safe_dump({"app": app, "space": "local-romio"}))
    return p


@pytest.mark.parametrize(("app", "message"), [
    ({"kernel": "h5write", "ranks": 2, "args": {"size": 0}}, r"app.args.size: 0 is not a positive size"),
    ({"kernel": "h5write", "ranks": 2, "args": {"size": 1e30}}, r"app.args.size: 1e\+30 is not a positive size of at most"),
    ({"kernel": "ior", "ranks": 2, "args": {"block_size": "1TiB", "segments": 2}}, r"bytes per rank and phase is more than"),
    ({"kernel": "ior", "ranks": 2, "args": {"blocksize": "1MiB"}},
     r"app.args: unknown argument 'blocksize' of kernel ior \(allowed: block_size, file_mode"),
    ({"kernel": "h5write", "ranks": 2, "args": {"decomposition": "diagonal"}},
     r"app.args.decomposition: 'diagonal' is not one of row, column"),
    ({"kernel": "vpic", "ranks": 2, "args": {"phases": ["write", "append"]}}, r"app.args.phases: .* is not a list of distinct"),
    ({"kernel": "ior", "ranks": 10**12}, r"app.ranks: 1000000000000 is more than 10000000"),
    ({"kernel": "ior", "ranks": 2, "args": {"block_size": "1MiB", "transfer_size": "384KiB"}},
     r"app.args.block_size: 1048576 is not a multiple of transfer_size \(393216\)"),
    ({"kernel": "h5write", "ranks": 4, "args": {"rows": 8, "cols": 2}}, r"2 columns cannot be split over 4 ranks"),
    ({"kernel": "h5write", "ranks": 2, "args": {"rows": 8}}, r"rows and cols go together"),
    ({"kernel": "vpic", "ranks": 2, "args": {"no_sync": "yes"}}, r"app.args.no_sync: 'yes' is not true or false"),
])
def test_bad_kernel_arguments_are_refused_at_load(tmp_path: Path, app: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message) as err:
        load_campaign(_campaign(tmp_path, app))
    assert "\n" not in str(err.value)


def test_bad_argument_is_exit_2_one_line_from_the_cli(tmp_path: Path) -> None:
    path = _campaign(tmp_path, {"kernel": "h5write", "ranks": 2, "args": {"size": 0}})
    proc = subprocess.run([sys.executable, "-m", "autotune.cli", "tune", str(path), "--dry-run"],
                          capture_output=True, text=True, cwd=tmp_path, check=False)
    assert proc.returncode == 2
    expected = "autotune: error: app.args.size: 0 is not a positive size of at most 1099511627776"
    assert proc.stderr.strip().splitlines() == [expected]


def test_unknown_kernel_names_the_known_ones() -> None:
    with pytest.raises(RegistryError, match="app.kernel: 'fio' is not one of ior, h5write, vpic"):
        KERNELS.get("fio")


def test_argv_spells_out_every_default() -> None:
    k = KERNELS.get("ior")
    argv = k.argv(k.resolve({"segments": "2Ki"}, 2), "python", "/d", "/r/info.json", alignment=4096)
    assert argv[:5] == ["python", "-m", "mpi4py", "-m", "autotune.kernels.ior"]
    assert argv[5:] == ["--block-size", str(4 << 20), "--transfer-size", str(1 << 20), "--segments", "2048",
                        "--file-mode", "shared", "--layout", "contiguous", "--phases", "write,read",
                        "--io-mode", "collective", "--dir", "/d", "--info-file", "/r/info.json"]
    h5 = KERNELS.get("h5write")
    assert h5.argv(h5.resolve({}, 2), "p", "/d", "/i", alignment=4096)[-2:] == ["--alignment", "4096"]


def test_quickstart_declares_its_read_phase() -> None:
    c = load_campaign(REPO / "experiments" / "campaigns" / "quickstart.yaml")
    assert c.app.pattern.phases == ("write", "read")
    assert c.app.pattern.bytes_per_rank * c.app.ranks == 32 << 20

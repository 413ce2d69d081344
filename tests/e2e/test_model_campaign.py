"""A `launcher: model` campaign through the same CLI, storage, tracking and export as a real one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "autotune.cli", *args], capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_theta_ior_on_the_model_finds_the_seed_region(tmp_path: Path) -> None:
    f = str(REPO / "experiments" / "campaigns" / "model-theta-ior.yaml")
    res = cli("tune", f, "--trials", "40", "--workdir", str(tmp_path))
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "mlflow.db").exists()
    lfs = cli("export", f, "--workdir", str(tmp_path), "--format", "lfs", "--path", "/lus/theta-fs0/projects/run")
    assert lfs.returncode == 0, lfs.stderr
    words = lfs.stdout.split()
    count, size = int(words[words.index("-c") + 1]), words[words.index("-S") + 1]
    assert 32 <= count <= 56  # ALCF Theta I/O talk: best near 48 of 56 OSTs
    assert size in ("4m", "8m", "16m", "32m", "64m")  # seed: 8-32 MB
    mpich = cli("export", f, "--workdir", str(tmp_path), "--format", "mpich")
    assert f"striping_factor={count}" in mpich.stdout

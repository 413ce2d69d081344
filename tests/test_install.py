"""A non-editable install with the base dependencies only (optuna, pyyaml, numpy), run from another directory:
the wheel carries the shipped data, and `space`, `model calibrate` and a model campaign work; a missing extra
is named in one line when its feature is used."""

from __future__ import annotations

import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXTRAS = ("mlflow", "matplotlib", "scipy", "ray", "mpi4py", "h5py", "cmaes", "torch", "psycopg")


def _run(cmd: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(cwd)})


@pytest.mark.slow
def test_wheel_installs_and_runs_with_the_base_dependencies_only(tmp_path: Path) -> None:
    src = tmp_path / "src"  # a clean copy: no build/ or egg-info left in the worktree
    shutil.copytree(REPO, src, ignore=shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.egg-info", "build",
                                                              "autotune-runs", ".slurm", "evaluation", "tests"))
    wheels = tmp_path / "wheels"
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(src)], tmp_path)
    assert built.returncode == 0, built.stderr[-2000:]
    [wheel] = wheels.glob("autotune-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for data in ("autotune/data/search_spaces/lustre-cray.yaml", "autotune/data/search_spaces/systems/theta.yaml",
                 "autotune/data/launchers/slurm-job.sh.tmpl"):
        assert data in names

    env = tmp_path / "venv"
    venv.create(env, with_pip=True)
    py, cli = env / "bin" / "python", env / "bin" / "autotune"
    inst = _run([str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(wheel)], tmp_path)
    assert inst.returncode == 0, inst.stderr[-2000:]
    present = _run([str(py), "-c", "import importlib.util as u, sys; "
                    f"print([m for m in {EXTRAS!r} if u.find_spec(m)])"], tmp_path)
    assert present.stdout.strip() == "[]", present.stdout  # only the base dependencies

    work = tmp_path / "elsewhere"
    work.mkdir()
    shutil.copy(REPO / "examples" / "model-theta-ior.yaml", work / "c.yaml")
    space = _run([str(cli), "space", "c.yaml"], work)
    assert space.returncode == 0 and "lustre.stripe_count" in space.stdout, space.stderr
    cal = _run([str(cli), "model", "calibrate"], work)
    assert cal.returncode == 0 and "within tolerance" in cal.stdout, cal.stderr
    tune = _run([str(cli), "tune", "c.yaml", "--no-tracking", "--trials", "4"], work)
    assert tune.returncode == 0, tune.stderr
    assert "recommended settings" in tune.stdout and (work / "autotune-runs" / "model-theta-ior" / "optuna.db").is_file()

    tracked = _run([str(cli), "tune", "c.yaml", "--trials", "5"], work)
    assert tracked.returncode == 2
    assert tracked.stderr.strip().splitlines() == [
        "autotune: error: tracking to MLflow (use --no-tracking or tracking: {enabled: false}) needs mlflow, which "
        "is not installed: pip install 'autotune[tracking]'"]
    compare = _run([str(cli), "compare", "c.yaml", "c.yaml", "--report", "rep", "--no-tracking"], work)
    assert compare.returncode == 2 and "pip install 'autotune[report]'" in compare.stderr

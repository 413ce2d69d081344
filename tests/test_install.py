"""A non-editable install with the base dependencies only (optuna, pyyaml, numpy), run from another directory:
the wheel carries the shipped data (top-level search_spaces/ and the launchers/ templates, as autotune/_data/),
and `space`, `model calibrate`, a model campaign and a Slurm dry run (the shipped job template) work without the
checkout; AUTOTUNE_DATA_PATH adds a space; a missing extra is named in one line when its feature is used. An
editable install of the same source then finds the data at the top of the checkout."""

from __future__ import annotations

import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
EXTRAS = ("mlflow", "matplotlib", "scipy", "ray", "mpi4py", "h5py", "cmaes", "torch", "psycopg")


# A model campaign as a user writes it (nothing from the checkout's experiments/): Theta's Lustre, shipped space.
CAMPAIGN = {
    "name": "model-theta-ior",
    "app": {"name": "ior-model", "command": ["ior", "-a", "MPIIO", "-c", "-w"], "ranks": 4096, "nodes": 256,
            "pattern": {"bytes_per_rank": "1MiB", "transfer_size": "1MiB", "io_mode": "collective", "library": "mpiio"},
            "metric": {"extractor": "json"}},
    "system": "theta",
    "target": {"filesystem": "projects"},
    "space": {"use": "lustre-cray", "only": ["lustre.stripe_count", "lustre.stripe_size"]},
    "objective": {"metric": "write_bandwidth_mib_s", "direction": "maximize", "repeats": 3, "aggregate": "best"},
    "budget": {"trials": 60, "run_timeout": "60s"},
    "sampler": {"name": "tpe", "seed": 1},
    "launcher": {"name": "model"},
}


def _run(cmd: list[str], cwd: Path, timeout: float = 600, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(cwd), **env})


@pytest.mark.slow
def test_wheel_installs_and_runs_with_the_base_dependencies_only(tmp_path: Path) -> None:
    src = tmp_path / "src"  # a clean copy: no build/ or egg-info left in the worktree
    shutil.copytree(REPO, src, ignore=shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.egg-info", "build",
                                                              "autotune-runs", ".slurm", "experiments", "tests"))
    wheels = tmp_path / "wheels"
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(src)], tmp_path)
    assert built.returncode == 0, built.stderr[-2000:]
    [wheel] = wheels.glob("autotune-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for data in ("autotune/_data/search_spaces/lustre-cray.yaml", "autotune/_data/search_spaces/rules.yaml",
                 "autotune/_data/search_spaces/systems/theta.yaml", "autotune/_data/launchers/slurm-job.sh.tmpl",
                 "autotune/_data/launchers/slurm-step.sh.tmpl"):
        assert data in names
    assert not [n for n in names if "slurm-local" in n or n.endswith("README.md")]  # test tooling stays out

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
    (work / "c.yaml").write_text(yaml.safe_dump(CAMPAIGN, sort_keys=False))
    space = _run([str(cli), "space", "c.yaml"], work)
    assert space.returncode == 0 and "lustre.stripe_count" in space.stdout, space.stderr
    cal = _run([str(cli), "model", "calibrate"], work)
    assert cal.returncode == 0 and "within tolerance" in cal.stdout, cal.stderr
    for flag in ("--cross-validate", "--out-of-sample"):  # the refits need SciPy: named, not an internal error
        refit = _run([str(cli), "model", "calibrate", flag], work)
        assert refit.returncode == 2 and refit.stderr.strip().splitlines() == [
            "autotune: error: autotune model calibrate --cross-validate / --out-of-sample needs scipy, which is not "
            "installed: pip install 'autotune[model]'"], refit.stderr
    tune = _run([str(cli), "tune", "c.yaml", "--no-tracking", "--trials", "4"], work)
    assert tune.returncode == 0, tune.stderr
    assert "recommended settings" in tune.stdout and (work / "autotune-runs" / "model-theta-ior" / "optuna.db").is_file()

    # The Slurm launcher renders the job-script template shipped in the wheel (a dry run submits nothing).
    slurm = {**CAMPAIGN, "name": "slurm-dry", "launcher": {"name": "slurm"}}
    (work / "s.yaml").write_text(yaml.safe_dump(slurm, sort_keys=False))
    dry = _run([str(cli), "tune", "s.yaml", "--dry-run", "--trials", "1", "--no-tracking"], work)
    assert dry.returncode == 0, dry.stderr
    assert "#SBATCH --job-name=autotune-slurm-dry-t0" in dry.stdout and "rendered by autotune.launch" in dry.stdout

    # AUTOTUNE_DATA_PATH roots come before the shipped data: a site's own space by name.
    site = tmp_path / "site" / "search_spaces"
    site.mkdir(parents=True)
    (site / "site-lustre.yaml").write_text((REPO / "search_spaces" / "lustre-cray.yaml").read_text())
    (work / "d.yaml").write_text(yaml.safe_dump({**CAMPAIGN, "space": {**CAMPAIGN["space"], "use": "site-lustre"}}))
    own = _run([str(cli), "space", "d.yaml"], work, AUTOTUNE_DATA_PATH=str(tmp_path / "site"))
    assert own.returncode == 0 and "lustre.stripe_count" in own.stdout, own.stderr
    unknown = _run([str(cli), "space", "d.yaml"], work)
    assert unknown.returncode == 2 and "site-lustre" in unknown.stderr, unknown.stderr

    tracked = _run([str(cli), "tune", "c.yaml", "--trials", "5"], work)
    assert tracked.returncode == 2
    assert tracked.stderr.strip().splitlines() == [
        "autotune: error: tracking to MLflow (use --no-tracking or tracking: {enabled: false}) needs mlflow, which "
        "is not installed: pip install 'autotune[tracking]'"]
    compare = _run([str(cli), "compare", "c.yaml", "c.yaml", "--report", "rep", "--no-tracking"], work)
    assert compare.returncode == 2 and "pip install 'autotune[report]'" in compare.stderr

    # An editable install of the same source (pip install -e) finds the data at the top of the checkout.
    editable = _run([str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps", "-e", str(src)],
                    tmp_path)
    assert editable.returncode == 0, editable.stderr[-2000:]
    where = _run([str(py), "-c", "import autotune; print(autotune.__file__)"], work)
    assert where.stdout.strip() == str(src / "autotune" / "__init__.py"), where.stdout + where.stderr
    space = _run([str(cli), "space", "c.yaml"], work)
    assert space.returncode == 0 and "lustre.stripe_count" in space.stdout, space.stderr
    dry = _run([str(cli), "tune", "s.yaml", "--dry-run", "--trials", "1", "--no-tracking"], work)
    assert dry.returncode == 0 and "rendered by autotune.launch" in dry.stdout, dry.stderr

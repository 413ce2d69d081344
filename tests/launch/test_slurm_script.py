"""Rendered Slurm job scripts (dry-run): #SBATCH, #DW capacity, lfs striping, hints, quoting. No Slurm needed."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest

from autotune.errors import ConfigError
from autotune.launch import get_launcher
from autotune.launch._jobscript import slurm_time
from autotune.testing import make_requests

HOSTILE = ["a'; rm -rf / #", "$(touch /tmp/pwned)", "x\ny; touch /tmp/pwned", "`touch /tmp/pwned`", '"; exit 3 #']


def _launcher(**options: object):
    return get_launcher("slurm", options)


@pytest.mark.parametrize(("pool", "nodes", "capacity"), [
    ("wlm_pool", 1, "82GiB"), ("wlm_pool", 4, "328GiB"), ("sm_pool", 5, "100GiB"), ("sm_pool", 80, "1611GiB")])
def test_cori_datawarp_capacity_is_nodes_times_granularity(tmp_path: Path, pool: str, nodes: int, capacity: str) -> None:
    reqs = make_requests(tmp_path, system="cori", fs="bb", config={"bb.nodes": nodes, "bb.pool": pool},
                         kernel="ior", ranks=64, nodes=2, reps=2)
    text = _launcher(stage_in="/global/cscratch1/in", stage_out="/global/cscratch1/out").render(reqs)
    lines = text.splitlines()
    dw = [i for i, line in enumerate(lines) if line.startswith("#DW")]
    sbatch = [i for i, line in enumerate(lines) if line.startswith("#SBATCH")]
    assert lines[dw[0]] == f"#DW jobdw type=scratch access_mode=striped capacity={capacity} pool={pool}"
    assert dw[0] == sbatch[-1] + 1 and dw == list(range(dw[0], dw[0] + 3))  # right after #SBATCH
    assert "#DW stage_in type=directory source=/global/cscratch1/in destination=$DW_JOB_STRIPED" in lines
    assert "#SBATCH --constraint=haswell" in lines and "#SBATCH --nodes=2" in lines and "#SBATCH --ntasks=64" in lines
    assert text.count('DATA_DIR="${DW_JOB_STRIPED:?no DataWarp allocation}"/rep') == 2
    for var in ("MPICH_MPIIO_HINTS_DISPLAY=1", "MPICH_MPIIO_STATS=1", "MPICH_MPIIO_TIMERS=1"):
        assert f"export {var}" in text
    assert "lfs setstripe" not in text


def test_shaheen_seed_capacity_rounds_down_to_gib(tmp_path: Path) -> None:
    reqs = make_requests(tmp_path, system="shaheen2", fs="bb", config={"bb.nodes": 64}, ranks=64, nodes=2,
                         command=("./wrf.exe",))
    assert "capacity=25436GiB pool=wlm_pool" in _launcher().describe(reqs[0])  # KAUST Shaheen II training: 64 x 397.44 -> 25436


def test_shaheen_lustre_striping_and_hints(tmp_path: Path) -> None:
    reqs = make_requests(tmp_path, system="shaheen2", config={"lustre.stripe_count": 64, "lustre.stripe_size": 4 << 20,
                                                               "mpiio.cb_nodes": 64}, command=("./wrf.exe",), ranks=64, nodes=2)
    text = _launcher(account="k01").describe(reqs[0])
    assert 'lfs setstripe -c 64 -S 4m "$DATA_DIR"' in text.splitlines()
    assert any(line.startswith('lfs getstripe "$DATA_DIR" >') for line in text.splitlines())
    assert "#SBATCH --partition=workq" in text and "#SBATCH --account=k01" in text
    assert not any(line.startswith("#DW") for line in text.splitlines())
    hints = re.search(r"export MPICH_MPIIO_HINTS=(.*)", text)
    assert hints and "striping_factor=64" in hints.group(1) and "striping_unit=4194304" in hints.group(1)
    skipped = _launcher(skip_lfs=True).describe(reqs[0])
    assert '# skip_lfs: lfs setstripe -c 64 -S 4m "$DATA_DIR"' in skipped


def test_local_mpich_uses_a_romio_hints_file(tmp_path: Path) -> None:
    reqs = make_requests(tmp_path, config={"mpiio.cb_nodes": 2}, command=("app",))
    text = _launcher().describe(reqs[0])
    assert f"export ROMIO_HINTS={reqs[0].run_dir}/romio-hints.txt" in text and "MPICH_MPIIO" not in text


@pytest.mark.parametrize("bad", HOSTILE)
def test_hostile_values_are_quoted(tmp_path: Path, bad: str) -> None:
    """Run the rendered script with bash (no srun: the app is printf): every value comes back verbatim."""
    bad = bad.replace("/tmp/pwned", str(tmp_path / "pwned"))
    reqs = make_requests(tmp_path / "d", command=("printf", "%s\\0", bad, f"--x={bad}", "{data_dir}/" + bad),
                         env={"APP_X": bad}, campaign=bad, mpiexec=False)
    text = _launcher().describe(reqs[0])
    assert text.splitlines()[1].startswith("#SBATCH --job-name=autotune-") and "\n#SBATCH --job-name" not in text[20:]
    assert subprocess.run(["bash", "-n"], input=text, text=True, check=False).returncode == 0
    script = tmp_path / "job.sh"
    script.write_text(text.replace("exec timeout", "printf '%s' \"$APP_X\" >\"$AUTOTUNE_RUN_DIR/env\"; exec timeout"))
    reqs[0].run_dir.mkdir(parents=True)
    proc = subprocess.run(["bash", str(script)], capture_output=True, text=True, check=False, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert not (tmp_path / "pwned").exists()
    out = (reqs[0].run_dir / "rep0.out").read_text()
    assert out.split("\0")[:3] == [bad, f"--x={bad}", f"{reqs[0].data_dir}/{bad}"]
    assert (reqs[0].run_dir / "env").read_text() == bad
    assert (reqs[0].run_dir / "rep0.rc").read_text().strip() == "0"


@pytest.mark.parametrize("key", ["partition", "account", "qos", "constraint", "stage_in", "dw_job_striped"])
def test_hostile_options_are_refused(tmp_path: Path, key: str) -> None:
    reqs = make_requests(tmp_path, system="cori", fs="bb", config={"bb.nodes": 1}, command=("app",))
    with pytest.raises(ConfigError, match=key):
        _launcher(**{key: "debug\n#SBATCH --uid=0; touch /tmp/pwned"}).describe(reqs[0])


def test_hostile_env_name_is_refused(tmp_path: Path) -> None:
    reqs = make_requests(tmp_path, command=("app",), env={"X=1 touch /tmp/pwned;Y": "1"})
    with pytest.raises(ConfigError, match="environment variable name"):
        _launcher().describe(reqs[0])


def test_run_dir_with_spaces_stays_off_sbatch_lines(tmp_path: Path) -> None:
    reqs = make_requests(tmp_path / "my runs", command=("app",))
    text = _launcher().describe(reqs[0])
    assert "--output" not in text and shlex.quote(str(reqs[0].run_dir / "rep0.out")) in text


def test_unknown_option_and_mode(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        get_launcher("slurm", {"bogus": 1})
    with pytest.raises(ConfigError, match="mode"):
        get_launcher("slurm", {"mode": "array"})
    reqs = make_requests(tmp_path, system="cori", fs="bb", config={"bb.nodes": 1}, command=("app",))
    with pytest.raises(ConfigError, match="burst-buffer"):
        get_launcher("slurm-step").describe(reqs[0])


def test_time_limit(tmp_path: Path) -> None:
    assert slurm_time(1) == "00:01:00" and slurm_time(3600) == "01:00:00" and slurm_time(2 * 86400 + 61) == "2-00:02:00"
    reqs = make_requests(tmp_path, command=("app",), reps=3, timeout=100)
    assert "#SBATCH --time=00:06:00" in _launcher().render(reqs)  # 3 x 100 s + 60 s
    assert "#SBATCH --time=02:00:00" in _launcher(time_limit="2h").render(reqs)


def test_site_template(tmp_path: Path) -> None:
    tmpl = tmp_path / "site.sh.tmpl"
    tmpl.write_text("#!/bin/bash\n@{sbatch}\n@{dw}\nmodule load cray-mpich # mail me@@site\n@{setup}\n@{body}\n")
    reqs = make_requests(tmp_path, command=("app",))
    text = _launcher(template=str(tmpl)).describe(reqs[0])
    assert "module load cray-mpich # mail me@site" in text and "exec timeout" in text

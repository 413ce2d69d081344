"""Job-script lines of today's tiers: Rabbit #DW jobdw, node-local NVMe #SBATCH --tmp, RW-PCC lfs project."""

from __future__ import annotations

from pathlib import Path

import pytest

from autotune.errors import ConfigError
from autotune.hints import render, resolve
from autotune.launch import get_launcher
from autotune.pattern import IOPattern
from autotune.space import load_space
from autotune.systems import load_system
from autotune.testing import make_requests

RABBIT = load_system("rabbit-nnf")
FPP = IOPattern(ranks=64, nodes=4, bytes_per_rank=1 << 30, file_mode="fpp", io_mode="independent")


def test_rabbit_capacity_is_per_node_for_xfs_and_total_for_lustre() -> None:
    """NNF docs: xfs/gfs2/raw capacity is per compute node, lustre's the aggregate."""
    fs = RABBIT.filesystem("rabbit")
    assert render("dw", resolve({"rabbit.type": "xfs"}, RABBIT, fs, FPP)) == "#DW jobdw type=xfs capacity=16GiB name=autotune"
    assert render("dw", resolve({"rabbit.type": "gfs2"}, RABBIT, fs, FPP)) == "#DW jobdw type=gfs2 capacity=16GiB name=autotune"
    assert render("dw", resolve({}, RABBIT, fs, FPP)) == "#DW jobdw type=lustre capacity=64GiB name=autotune"
    with pytest.raises(ConfigError, match="rabbit.type: 'raw' is not one of xfs, gfs2, lustre"):
        resolve({"rabbit.type": "raw"}, RABBIT, fs, FPP)


def test_job_lines_of_each_tier() -> None:
    theta = load_system("theta")
    ssd = render("job", resolve({}, theta, theta.filesystem("ssd"), FPP)).splitlines()
    assert ssd[0].startswith("#SBATCH --tmp=16384M") and "qsub --attrs ssds=required:ssd_size=128" in ssd[1]
    pcc = render("job", resolve({}, RABBIT, RABBIT.filesystem("pcc"), FPP), path="/p/lustre/pcc/run")
    assert pcc.startswith("if command -v lfs >/dev/null; then mkdir -p /p/lustre/pcc/run && lfs project -p 1000 -s "
                          "/p/lustre/pcc/run; else ")
    assert pcc.endswith("fi  # RW-PCC auto-cache rule (archive id 2): new files are cached on the node's flash")
    assert render("job", resolve({}, RABBIT, RABBIT.filesystem("lustre"), FPP)) == "# defaults: nothing to set"


def test_rabbit_job_script_writes_under_dw_job_name(tmp_path: Path) -> None:
    reqs = make_requests(tmp_path, system="rabbit-nnf", fs="rabbit", config={"rabbit.type": "xfs"}, nodes=2,
                         reps=2, command=("./app",))
    text = get_launcher("slurm", {"dw_job_striped": "/tmp/stand-in", "stage_in": "/p/lustre/in"}).render(reqs)
    lines = text.splitlines()
    assert "#DW jobdw type=xfs capacity=1GiB name=autotune" in lines
    assert "#DW copy_in source=/p/lustre/in destination=$DW_JOB_autotune/" in lines
    assert text.count('DATA_DIR="${DW_JOB_autotune:?no Rabbit allocation}"/rep') == 2
    assert 'export DW_JOB_autotune="${DW_JOB_autotune:-/tmp/stand-in}"' in text
    with pytest.raises(ConfigError, match="needs a job per trial"):
        get_launcher("slurm-step", {}).render(reqs)


def test_nvme_and_pcc_job_scripts(tmp_path: Path) -> None:
    ssd = make_requests(tmp_path / "a", system="theta", fs="ssd", nodes=2, command=("./app",))  # 1 MiB: 1 GiB
    assert "#SBATCH --tmp=1024M" in get_launcher("slurm", {}).render(ssd).splitlines()
    pcc = get_launcher("slurm", {}).render(make_requests(tmp_path / "b", system="rabbit-nnf", fs="pcc",
                                                          command=("./app",)))
    assert ('if command -v lfs >/dev/null; then lfs project -p 1000 -s "$DATA_DIR"; else echo '
            "'autotune: lfs not found: PCC project not set' >&2; fi") in pcc
    assert 'lfs pcc state "$DATA_DIR"/* >' in pcc


def test_rules_of_the_tiers() -> None:
    shared = FPP.with_(file_mode="shared")
    bound = load_space("rabbit").bind(RABBIT, RABBIT.filesystem("rabbit"), shared)
    assert next(p for p in bound.active if p.name == "rabbit.type").choices == ("lustre",)  # xfs: per node only
    with pytest.raises(ConfigError, match="the pattern breaks rule node_local_needs_files_per_node"):
        load_space("node-local").bind(RABBIT, RABBIT.filesystem("pcc"), shared)
    huge = FPP.with_(bytes_per_rank=16 << 30, ranks=256)  # 4 TiB on 4 nodes of 128 GB
    theta = load_system("theta")
    with pytest.raises(ConfigError, match="node_local_capacity"):
        load_space("node-local").bind(theta, theta.filesystem("ssd"), huge)


def test_node_local_staging_is_copied_per_node_by_the_script(tmp_path: Path) -> None:
    """No workload manager stages node-local flash: the job copies, once per node, timed apart from the run."""
    reqs = make_requests(tmp_path, system="theta", fs="ssd", nodes=2, command=("./app",))
    text = get_launcher("slurm", {"stage_in": "/lus/in", "stage_out": "/lus/out"}).render(reqs)
    assert 'srun -N 2 --ntasks-per-node=1 cp -r -- /lus/in/. "$DATA_DIR"/' in text
    assert 'mkdir -p -- /lus/out/rep0 && srun -N 2 --ntasks-per-node=1 cp -r -- "$DATA_DIR"/. /lus/out/rep0/' in text
    assert text.index("/lus/in/.") < text.index("t0=$(date") < text.index("/lus/out/rep0/")
    dw = make_requests(tmp_path / "dw", system="cori", fs="bb", command=("./app",))
    real = get_launcher("slurm", {"stage_in": "/lus/in"}).render(dw)  # DataWarp stages it: no copy in the script
    assert "cp -r" not in real and "#DW stage_in type=directory source=/lus/in destination=$DW_JOB_STRIPED" in real

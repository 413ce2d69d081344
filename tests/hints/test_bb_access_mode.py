"""DataWarp access modes (KAUST Shaheen II training): private = one grain per compute node, files per node or process only."""

from __future__ import annotations

from pathlib import Path

import pytest

from autotune.errors import ConfigError
from autotune.hints import dw_lines, resolve
from autotune.launch import get_launcher
from autotune.model import predict
from autotune.pattern import IOPattern
from autotune.space import load_space
from autotune.systems import load_system
from autotune.testing import make_requests

CORI = load_system("cori")
FPP = IOPattern(ranks=64, nodes=4, bytes_per_rank=256 << 20, file_mode="fpp", io_mode="independent")


def test_private_capacity_is_one_grain_per_compute_node() -> None:
    s = resolve({"bb.access_mode": "private", "bb.nodes": 9}, CORI, CORI.filesystem("bb"), FPP)
    assert s.bb is not None and s.bb.nodes == 4 and s.bb.variable == "DW_JOB_PRIVATE"  # bb.nodes has no effect
    assert dw_lines(s) == ["#DW jobdw type=scratch access_mode=private capacity=82GiB pool=wlm_pool"]
    striped = resolve({"bb.nodes": 9}, CORI, CORI.filesystem("bb"), FPP)
    assert dw_lines(striped) == ["#DW jobdw type=scratch access_mode=striped capacity=738GiB pool=wlm_pool"]
    with pytest.raises(ConfigError, match="striped namespace only"):
        dw_lines(s, stage_in="/in")
    with pytest.raises(ConfigError, match="bb.access_mode: 'mirrored' is not one of striped, private"):
        resolve({"bb.access_mode": "mirrored"}, CORI, CORI.filesystem("bb"), FPP)


def test_private_job_script_writes_under_dw_job_private(tmp_path: Path) -> None:
    reqs = make_requests(tmp_path, system="cori", fs="bb", config={"bb.access_mode": "private"}, nodes=2, reps=2,
                         command=("./app",))
    text = get_launcher("slurm", {"dw_job_striped": "/tmp/stand-in"}).render(reqs)
    assert "#DW jobdw type=scratch access_mode=private capacity=82GiB pool=wlm_pool" in text.splitlines()
    assert text.count('DATA_DIR="${DW_JOB_PRIVATE:?no DataWarp allocation}"/rep') == 2
    assert 'export DW_JOB_PRIVATE="${DW_JOB_PRIVATE:-/tmp/stand-in}"' in text and "DW_JOB_STRIPED" not in text


def test_rules_keep_private_to_files_per_node() -> None:
    space = load_space("datawarp-cray")
    shared = IOPattern(ranks=64, nodes=4, bytes_per_rank=256 << 20)
    bound = space.bind(CORI, CORI.filesystem("bb"), shared)
    [mode] = [p for p in bound.active if p.name == "bb.access_mode"]
    assert mode.choices == ("striped",)  # a shared file cannot be seen from private namespaces: not proposed
    assert any("bb_private_needs_files_per_node" in n and "left out of the search" in n for n in bound.notices)
    fpp = space.bind(CORI, CORI.filesystem("bb"), FPP)
    assert next(p for p in fpp.active if p.name == "bb.access_mode").choices == ("striped", "private")
    assert fpp.feasible({**fpp.default_config(), "bb.access_mode": "private", "mpiio.cb_nodes": 3})
    big = FPP.with_(bytes_per_rank=8 << 30)  # 16 ranks x 8 GiB per node: 128 GiB > one 82 GiB grain
    bound_big = space.bind(CORI, CORI.filesystem("bb"), big)
    assert not bound_big.feasible({**bound_big.default_config(), "bb.access_mode": "private"})
    with pytest.raises(ConfigError, match="private gives each compute node 82.00 GiB"):
        predict(big, CORI, "bb", {"bb.access_mode": "private"})


def test_model_private_is_one_bb_node_per_compute_node() -> None:
    """Private: grains = compute nodes. Few nodes over a big striped allocation lose; many small nodes win."""
    few = FPP  # 4 compute nodes: private gets 4 BB nodes, striped 16 grains
    p_few = predict(few, CORI, "bb", {"bb.access_mode": "private"}).phases[0]
    s_few = predict(few, CORI, "bb", {"bb.nodes": 16}).phases[0]
    assert predict(few, CORI, "bb", {"bb.access_mode": "private"}).hints_in_effect["bb_nodes"] == 4
    # 4 nodes x DVS client 1.8 GB/s either way: same ceiling, private no slower
    assert p_few.seconds <= s_few.seconds * 1.0001
    many = FPP.with_(ranks=1024, nodes=64, bytes_per_rank=16 << 20)  # 16 GiB: one striped grain holds it
    private = predict(many, CORI, "bb", {"bb.access_mode": "private"})
    striped = predict(many, CORI, "bb", {})
    assert striped.hints_in_effect["bb_nodes"] == 1 and private.hints_in_effect["bb_nodes"] == 64
    assert private.phases[0].seconds < striped.phases[0].seconds / 10  # 64 BB nodes instead of one
    meta = next(t for t in private.phases[0].terms if t.resource == "metadata")
    meta_s = next(t for t in striped.phases[0].terms if t.resource == "metadata")
    assert meta.seconds == pytest.approx(meta_s.seconds / 64)  # each private namespace its own metadata


def test_bb_nodes_is_inert_in_private_mode() -> None:
    from autotune.hints import inert

    assert "bb.nodes" in inert({"bb.access_mode": "private", "bb.nodes": 9})
    assert inert({"bb.access_mode": "striped", "bb.nodes": 9}) == {}

"""Today's tiers on the model: node-local NVMe (the ALCF Theta I/O talk's Theta SSDs), RW-PCC, HPE Rabbit xfs/lustre."""

from __future__ import annotations

import pytest

from autotune.errors import ConfigError
from autotune.model import predict
from autotune.pattern import IOPattern
from autotune.systems import load_system, parse_system

THETA = load_system("theta")
RABBIT = load_system("rabbit-nnf")
FPP = IOPattern(ranks=128, nodes=64, bytes_per_rank=1 << 30, file_mode="fpp", io_mode="independent")


def _mb_per_node(p: IOPattern, op: str = "write") -> float:
    ph = predict(p.with_(phases=(op,)), THETA, "ssd").phases[0]
    return p.data_bytes / ph.seconds / p.nodes / 1e6


def test_theta_ssd_needs_two_writers_per_node() -> None:
    """ALCF Theta I/O talk: one process writes 175 MB/s, two 350 MB/s, and no more (the constants ARE these figures:
    this checks the mechanism, one stream per process capped by the device, not the model's accuracy)."""
    one, two, four = (_mb_per_node(FPP.with_(ranks=64 * n)) for n in (1, 2, 4))
    assert one == pytest.approx(175, rel=0.03) and two == pytest.approx(350, rel=0.03)
    assert four == pytest.approx(two, rel=0.03)
    assert _mb_per_node(FPP.with_(ranks=128), "read") == pytest.approx(2200, rel=0.15)  # latency per 1 MiB call


def test_bounds_hold_on_every_tier() -> None:
    """No prediction beats the aggregate ceilings (model/_bounds.py) on the near-node tiers."""
    from autotune.model._bounds import aggregate_limits
    from autotune.model._constants import constants_for
    from autotune.model._settings import settings_in_effect

    for system, fs, cfg in ((THETA, "ssd", {}), (RABBIT, "pcc", {}), (RABBIT, "rabbit", {"rabbit.type": "xfs"}),
                            (RABBIT, "rabbit", {"rabbit.type": "lustre"})):
        target = system.filesystem(fs)
        c = constants_for(system, target)
        for p in (FPP, FPP.with_(ranks=4096), FPP.with_(nodes=8, ranks=8)):
            r, _ = settings_in_effect(cfg, system, target, p, c)
            ceiling = min(lim.bytes_per_s for lim in aggregate_limits(p, r, c, target, "write"))
            secs = sum(t.seconds for t in predict(p, system, fs, cfg).phases[0].terms if t.resource != "metadata")
            assert p.data_bytes / secs <= ceiling * (1 + 1e-9), (fs, cfg, p)


def test_rabbit_xfs_is_bounded_by_the_chassis_and_the_links() -> None:
    """xfs: a chassis' 16 nodes share one Rabbit's SSDs; 8 nodes on one Rabbit get 2x the share of 16."""
    few = FPP.with_(nodes=8, ranks=8 * 16)
    full = FPP.with_(nodes=16, ranks=16 * 16)
    per_node_few = few.data_bytes / predict(few, RABBIT, "rabbit", {"rabbit.type": "xfs"}).phases[0].seconds / 8
    per_node_full = full.data_bytes / predict(full, RABBIT, "rabbit", {"rabbit.type": "xfs"}).phases[0].seconds / 16
    assert per_node_few == pytest.approx(2 * per_node_full, rel=0.02)
    one = FPP.with_(nodes=1, ranks=16)  # alone on its Rabbit: its PCIe link (7 GB/s) is the limit
    terms = predict(one, RABBIT, "rabbit", {"rabbit.type": "xfs"}).phases[0].terms
    assert any(t.resource == "PCIe link" for t in terms)


def test_rabbit_lustre_shares_the_job_rabbits_and_pays_the_mds() -> None:
    shared = FPP.with_(file_mode="shared", io_mode="independent")
    pred = predict(shared, RABBIT, "rabbit", {"rabbit.type": "lustre"})
    assert pred.hints_in_effect["rabbit_type"] == "lustre"
    assert "4 Rabbit(s)" in pred.phases[0].terms[1].detail  # 64 nodes / 16 per chassis
    xfs = predict(FPP, RABBIT, "rabbit", {"rabbit.type": "xfs"}).phases[0].terms[0]
    lus = predict(FPP, RABBIT, "rabbit", {"rabbit.type": "lustre"}).phases[0].terms[0]
    assert xfs.seconds < lus.seconds  # creates on each node's own xfs vs one MDS


def test_rabbit_rates_without_a_site_figure_are_an_error() -> None:
    bare = parse_system({"name": "bare", "filesystems": {"r": {"kind": "rabbit", "node_capacity": "60TB"}}})
    with pytest.raises(ConfigError, match="model constant rabbit_drive_bw is not set"):
        predict(FPP, bare, "r", {"rabbit.type": "xfs"})
    with pytest.raises(ConfigError, match="needs 'node_capacity'"):
        parse_system({"name": "bare", "filesystems": {"r": {"kind": "nvme"}}})
    with pytest.raises(ConfigError, match="needs 'pcc_archive_id' and 'pcc_project'"):
        parse_system({"name": "bare", "filesystems": {"r": {"kind": "pcc", "osts": 4, "node_capacity": "1TB"}}})

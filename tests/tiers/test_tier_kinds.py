"""Each built-in tier against the contract of ``autotune.tiers.Tier``, and what code asks of each kind."""

from __future__ import annotations

import re

import pytest

from autotune.errors import RegistryError
from autotune.measure import default_aggregate
from autotune.pattern import IOPattern
from autotune.space import load_space
from autotune.systems import FileSystem, Pool, load_system
from autotune.tiers import DATAWARP, LUSTRE, NVME, PCC, POSIX, RABBIT, TIERS, Tier, by_mount_type, tier

KINDS = ("lustre", "datawarp", "posix", "rabbit", "nvme", "pcc")
BOOLS = ("shared", "one_sided", "near_node", "probed", "dw_allocation", "tmp_request", "cache_state", "bills_bb_nodes",
         "stripes")


def test_registry_holds_one_instance_per_kind_in_profile_order() -> None:
    assert TIERS.names() == list(KINDS)
    assert [TIERS.get(k) for k in KINDS] == [LUSTRE, DATAWARP, POSIX, RABBIT, NVME, PCC]


def test_unknown_kind_is_one_line_naming_the_known_ones() -> None:
    with pytest.raises(RegistryError) as err:
        tier("gpfs", "filesystems.home.kind")
    assert str(err.value) == ("filesystems.home.kind: 'gpfs' is not one of "
                              "lustre, datawarp, posix, rabbit, nvme, pcc")


@pytest.mark.parametrize("name", KINDS)
def test_contract(name: str) -> None:
    t = TIERS.get(name)
    assert isinstance(t, Tier) and t.name == name and str(t) == name and re.fullmatch(r"[a-z]+", name)
    assert t.label and isinstance(t.label, str)
    for flag in BOOLS:
        assert isinstance(getattr(t, flag), bool), flag
    assert not (t.near_node and t.probed), "a per-job mount is not visible where autotune runs"
    assert not (t.near_node and t.shared)
    assert all(by_mount_type(m) is t for m in t.mount_types)
    if t.space is not None:
        assert load_space(t.space).params
    keys = {k for ks, _ in t.profile_needs for k in ks}
    assert (t.missing(set()) is None) == (not t.profile_needs)
    assert t.missing(keys) is None
    for ks, message in t.profile_needs:
        assert t.missing(keys - {ks[0]}) is not None and message


def test_what_each_kind_says() -> None:
    assert {t.name for t in map(TIERS.get, TIERS) if t.one_sided} == {"lustre", "datawarp", "rabbit"}
    assert {t.name for t in map(TIERS.get, TIERS) if t.near_node} == {"rabbit", "nvme", "pcc"}
    assert {t.name for t in map(TIERS.get, TIERS) if t.dw_allocation} == {"datawarp", "rabbit"}
    assert [t.name for t in map(TIERS.get, TIERS) if t.tmp_request] == ["nvme"]
    assert [t.name for t in map(TIERS.get, TIERS) if t.cache_state] == ["pcc"]
    assert [t.name for t in map(TIERS.get, TIERS) if t.bills_bb_nodes] == ["datawarp"]
    assert [t.name for t in map(TIERS.get, TIERS) if t.stripes] == ["lustre"]
    assert by_mount_type("dvs") is DATAWARP and by_mount_type("ext4") is None


@pytest.mark.parametrize("name", KINDS)
def test_confirmation_aggregate_follows_the_tier(name: str) -> None:
    assert default_aggregate(name) == ("best" if TIERS.get(name).one_sided else "median")


def test_rabbit_types_and_namespace() -> None:
    assert RABBIT.rabbit_types == ("xfs", "gfs2", "lustre") and RABBIT.default_type in RABBIT.rabbit_types
    assert RABBIT.shared_namespace(None) and RABBIT.shared_namespace("lustre")
    assert not RABBIT.shared_namespace("xfs") and not RABBIT.shared_namespace("gfs2")
    assert all(TIERS.get(n).rabbit_types == () for n in TIERS if n != "rabbit")


def test_bb_nodes_default_is_the_fewest_grains_that_hold_the_writes() -> None:
    fs = FileSystem("bb", DATAWARP.name, pools={"small": Pool("small", 1 << 30, 10), "big": Pool("big", 4 << 30, 10)},
                    default_pool="small")
    p = IOPattern(ranks=4, nodes=1, bytes_per_rank=1 << 30, phases=("write", "write"))  # 8 GiB written
    assert DATAWARP.bb_nodes({}, fs, p) == 8
    assert DATAWARP.bb_nodes({"bb.pool": "big"}, fs, p) == 2
    assert DATAWARP.bb_nodes({"bb.nodes": 3}, fs, p) == 3
    with pytest.raises(Exception, match="unknown pool 'none'"):
        DATAWARP.bb_nodes({"bb.pool": "none", "bb.nodes": 3}, fs, p)


def test_a_profile_file_system_knows_its_tier() -> None:
    cori = load_system("cori")
    assert cori.filesystem("bb").tier is DATAWARP
    assert all(fs.tier is TIERS.get(fs.kind) for fs in cori.filesystems.values())

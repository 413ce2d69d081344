"""Rules of thumb bound to a target: what a user tries first, capped as the system caps it, each with its source."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from autotune.errors import ConfigError
from autotune.pattern import IOPattern
from autotune.space import load_space, rules_of_thumb
from autotune.systems import load_system, parse_system


def bound(system: str, space: str, fs: str, **pattern: Any) -> Any:
    s = load_system(system)
    if space == "local-openmpi":
        s = dataclasses.replace(s, mpi_flavour="openmpi")
    return load_space(space).bind(s, s.filesystem(fs), IOPattern(**pattern))


def changed(sp: Any, cfg: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in cfg.items() if sp.default_config().get(k) != v}


def test_a_stripe_per_node_is_capped_at_the_osts_and_cray_s_aggregators_follow_the_stripe_count() -> None:
    sp = bound("cori", "lustre-cray", "scratch", ranks=2048, nodes=64, bytes_per_rank=16 << 20)
    rules, _ = rules_of_thumb(sp)
    by = {b.name: changed(sp, b.config) for b in rules}
    assert by["stripe-per-node"] == {"lustre.stripe_count": 64, "mpiio.cb_nodes": 64}  # nodes < 248 OSTs
    assert by["all-osts"] == {"lustre.stripe_count": 248, "mpiio.cb_nodes": 248}
    assert all(b.source for b in rules) and "nc_striping=auto" in rules[0].source
    wide = bound("theta", "lustre-cray", "projects", ranks=4096, nodes=64, bytes_per_rank=1 << 20)
    rules, notes = rules_of_thumb(wide)  # 64 nodes on 56 OSTs: both rules stripe over all 56, run once
    assert changed(wide, rules[0].config)["lustre.stripe_count"] == 56 and rules[0].name == "stripe-per-node = all-osts"
    assert any("the same configuration as stripe-per-node" in n for n in notes)
    assert all(wide.feasible(b.config) for b in rules)


def test_the_site_s_preset_is_the_one_its_documentation_gives_for_the_file_s_size() -> None:
    sizes = {256 << 10: None, 2 << 20: "stripe_small", 16 << 20: "stripe_medium", 256 << 20: "stripe_large"}
    for per_rank, preset in sizes.items():  # x 2048 ranks: 0.5 GiB, 4 GiB, 32 GiB, 512 GiB
        sp = bound("cori", "lustre-cray", "scratch", ranks=2048, nodes=64, bytes_per_rank=per_rank)
        names = {b.name for b in rules_of_thumb(sp)[0]}
        expected = {"stripe_small": 8, "stripe_medium": 24, "stripe_large": 72}
        assert {n for n in names if n.startswith("stripe_")} == ({preset} if preset else set())
        if preset:
            [b] = [b for b in rules_of_thumb(sp)[0] if b.name == preset]
            assert b.config["lustre.stripe_count"] == expected[preset] and "docs.nersc.gov" in b.source


def test_burst_buffer_rules_and_a_rule_equal_to_the_default_is_the_default() -> None:
    sp = bound("cori", "datawarp-cray", "bb", ranks=256, nodes=16, bytes_per_rank=256 << 20)
    by = {b.name: changed(sp, b.config) for b in rules_of_thumb(sp)[0]}
    assert by == {"bb-nodes-per-node": {"bb.nodes": 16, "mpiio.cb_nodes": 16},
                  "no-collective-buffering": {"mpiio.romio_cb_write": "disable"}}
    ompi = bound("local", "local-openmpi", "disk", ranks=4, nodes=1, bytes_per_rank=1 << 20)
    rules, notes = rules_of_thumb(ompi)
    assert not rules and any("open-mpi-default-component: the default configuration here" in n for n in notes)


def test_a_site_rule_needs_its_source_and_names_its_settings() -> None:
    base = {"name": "site", "mpi": {"flavour": "mpich"},
            "filesystems": {"scratch": {"kind": "lustre", "osts": 8}}}
    rule = {"name": "half", "settings": {"lustre.stripe_count": "fs.osts / 2"}, "source": "the site's wiki"}
    fs = parse_system({**base, "filesystems": {"scratch": {"kind": "lustre", "osts": 8, "rules_of_thumb": [rule]}}})
    assert fs.filesystem("scratch").rules_of_thumb[0].name == "half"
    no_source = {k: v for k, v in rule.items() if k != "source"}
    with pytest.raises(ConfigError, match="source"):
        parse_system({**base, "filesystems": {"scratch": {"kind": "lustre", "osts": 8, "rules_of_thumb": [no_source]}}})
    with pytest.raises(ConfigError, match="at least one setting"):
        parse_system({**base, "filesystems": {"scratch": {"kind": "lustre", "osts": 8,
                                                          "rules_of_thumb": [{**rule, "settings": {}}]}}})


@pytest.mark.parametrize(("choices", "nodes", "want"), [
    ([4, 8, 16, 32, 128], 16, {"stripe-per-node": 16, "all-osts": 128}),   # 144 OSTs: the nearest listed
    ([1, 16, 32], 64, {"stripe-per-node = all-osts": 32}),                  # both beyond the list: its largest, once
    ([1, 144], 38, {"stripe-per-node = all-osts": 144}),                    # 38 is nearer 144 than 1 on the log scale
    ([1, 4, 8, 12, 16], 2, {"stripe-per-node": 4, "all-osts": 16}),        # 2 is as near 1 (the default) as 4: 4
    ([1, 2, 8, 16], 4, {"stripe-per-node": 2, "all-osts": 16}),             # a tie of two others: the smaller
    ([1, 8, 32, -1], 32, {"stripe-per-node": 32, "all-osts": 144}),         # -1 is every OST (lfs setstripe -c -1)
    ([-1, 4, 8], 8, {"stripe-per-node": 8}),                                 # ... and the default: all-osts is it
])
def test_a_rule_on_listed_stripe_counts_takes_the_nearest_listed_count(choices: list[int], nodes: int,
                                                                        want: dict[str, int]) -> None:
    """A user who lists the stripe counts they can run (a categorical) still gets the rules, on the nearest count."""
    from autotune.campaign import Runtime, parse_campaign

    c = parse_campaign({"name": "listed", "system": "shaheen2", "target": {"filesystem": "scratch"},
                        "app": {"command": ["app"], "ranks": nodes * 32, "nodes": nodes,
                                "pattern": {"bytes_per_rank": "64MiB"}},
                        "space": {"use": "lustre-cray", "only": ["lustre.stripe_count"], "parameters": {
                            "lustre.stripe_count": {"type": "categorical", "choices": choices, "default": choices[0]}}},
                        "objective": {"metric": "write_bandwidth_mib_s"}, "storage": ":memory:"}, Path("."))
    rules, _ = rules_of_thumb(Runtime.build(c).space)
    assert {b.name: b.config["lustre.stripe_count"] for b in rules} == want

"""One default for the burst-buffer allocation: the rules, the hints and the model agree when bb.nodes is not set."""

from __future__ import annotations

import pytest

from autotune.hints import resolve
from autotune.model import constants_for, scenarios, settings_in_effect
from autotune.pattern import IOPattern
from autotune.space import aggregators, load_space


@pytest.mark.parametrize("phases", [("write",), ("read", "write", "write"), ("read",)])
def test_rules_hints_and_model_use_one_bb_default(phases: tuple[str, ...]) -> None:
    cori = scenarios.system("cori")
    bb = cori.filesystem("bb")
    pattern = IOPattern(ranks=512, nodes=16, bytes_per_rank=2 << 30, phases=phases)
    grains = pattern.bb_nodes(bb.pool(None).granularity)
    assert grains * bb.pool(None).granularity >= pattern.written_bytes > (grains - 1) * bb.pool(None).granularity
    config = {"bb.pool": bb.pool(None).name}
    settings = resolve(config, cori, bb, pattern)
    assert settings.bb is not None and settings.bb.nodes == grains
    resolved, _ = settings_in_effect(config, cori, bb, pattern, constants_for(cori, bb))
    assert resolved.bb_nodes == grains
    space = load_space("datawarp-cray").bind(cori, bb, pattern)
    assert space.env(config)["bb.nodes"] == grains
    assert aggregators(cori, bb, pattern, config) == grains

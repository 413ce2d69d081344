"""`tune --dry-run` shows the proposals the real run makes, with the files and environment a run gets."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from autotune.campaign import CampaignLoop, Runtime, load_campaign
from autotune.campaign.check._dryrun import proposals
from autotune.cli import main

REPO = Path(__file__).resolve().parents[3]


@pytest.mark.slow
@pytest.mark.parametrize("sampler", [{"name": "tpe", "seed": 1}, {"name": "autotune", "seed": 2}])
def test_dry_run_proposals_equal_the_real_runs_first_proposals(tmp_path: Path, sampler: dict[str, Any]) -> None:
    c = load_campaign(REPO / "experiments" / "campaigns" / "model-theta-ior.yaml")
    c = c.with_overrides(workdir=tmp_path, budget=replace(c.budget, trials=8), tracking={"enabled": False},
                         sampler=sampler)
    shown, _ = proposals(c, Runtime.build(c), 8)
    assert len(shown) >= 4 and shown[0].is_default
    if sampler["name"] == "autotune":  # the default, then the model's enqueued picks
        assert any(p.initial for p in shown[1:])
    rt = Runtime.build(c)
    result = CampaignLoop(c, runtime=rt, progress=False, out=io.StringIO()).run()
    real = sorted((t for t in result.study.get_trials(deepcopy=False) if t.user_attrs.get("ran")),
                  key=lambda t: t.number)
    assert [(p.number, p.config) for p in shown] == [(t.number, rt.config_of(t)) for t in real[:len(shown)]]


def test_dry_run_prints_the_hints_file_and_environment(make_campaign: Any, capsys: Any) -> None:
    path = make_campaign(budget={"trials": 3})
    assert main(["tune", str(path), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "# ---- trial 0 (the default configuration)" in out
    assert "# environment: ROMIO_PRINT_HINTS=1" in out and "# environment: AUTOTUNE_TRIAL=1" in out
    assert "romio-hints.txt:\n#   " in out
    assert not (path.parent / "work" / "optuna.db").exists()  # no storage touched

"""A real (small) campaign of the built-in h5py kernel under mpiexec, end to end."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from autotune.campaign import CampaignLoop, parse_campaign, ran_trials
from autotune.tracking import get_tracker

REPO = Path(__file__).resolve().parents[2]


def campaign(tmp_path: Path, ranks: int, **over: Any) -> Any:
    data = yaml.safe_load((REPO / "experiments" / "campaigns" / "quickstart.yaml").read_text())
    data["app"]["ranks"] = ranks
    data["app"]["args"]["size"] = "4MiB"
    data["workdir"] = str(tmp_path / "work")
    data["budget"] = {"trials": 3, "run_timeout": "120s"}
    data["objective"]["repeats"] = 2
    data["objective"]["confirm"] = 0  # the confirmation has its own tests (tests/campaign/confirm/test_confirm.py)
    data.update(over)
    return parse_campaign(data, REPO / "experiments" / "campaigns")


@pytest.mark.slow
@pytest.mark.parametrize("ranks", [1, 2])
def test_real_kernel_campaign_records_repetitions_and_hints_in_effect(tmp_path: Path, ranks: int) -> None:
    c = campaign(tmp_path, ranks)
    tracker = get_tracker("mlflow", {"uri": c.tracking_uri, "experiment": "qs", "artifacts": str(tmp_path / "a")})
    res = CampaignLoop(c, tracker=tracker, progress=False, out=open(os.devnull, "w")).run()
    trials = ran_trials(res.study)
    assert len(trials) == 3
    for t in trials:
        assert t.state.name == "COMPLETE", t.user_attrs.get("error")
        assert len(t.user_attrs["repetitions"]) == 2 and all(v > 0 for v in t.user_attrs["repetitions"])
        assert "romio_cb_write" in t.user_attrs["hints_in_effect"]
    assert not any(c.data_root.iterdir()) if c.data_root.exists() else True
    assert "hints_text" in res.summary


@pytest.mark.slow
def test_a_silently_capped_aggregator_count_is_flagged(tmp_path: Path) -> None:
    space = {"use": "local-romio", "only": ["mpiio.cb_nodes"], "fixed": {"mpiio.romio_cb_write": "enable",
                                                                           "mpiio.cb_config_list": "*:1"}}
    c = campaign(tmp_path, 2, space=space, sampler={"name": "grid"}, tracking={"enabled": False})
    res = CampaignLoop(c, progress=False, out=open(os.devnull, "w")).run()
    by_nodes = {t.params["log2(mpiio.cb_nodes)"]: t for t in ran_trials(res.study) if not t.user_attrs.get("is_default")}
    capped = by_nodes[1]  # cb_nodes = 2 on one node with cb_config_list *:1
    assert "cb_nodes" in capped.user_attrs["hints_not_in_effect"]
    assert capped.user_attrs["hints_took_effect"] is False

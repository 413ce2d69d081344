"""A campaign runs the default and the rules of thumb first, confirms against the best rule, and says so."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from autotune import trialrecord
from autotune.campaign import CampaignLoop, Runtime, proposals, summary_text
from autotune.testing import model_campaign


@pytest.mark.slow
def test_the_rules_run_right_after_the_default_labelled_and_the_summary_weighs_the_best_of_them(tmp_path: Path) -> None:
    c = model_campaign(tmp_path, trials=6)  # theta, 16 nodes: stripe per node (16), all 56 OSTs, ALCF's presets
    rt = Runtime.build(c)
    shown, _ = proposals(c, rt, 4)
    assert shown[0].is_default and [p.rule for p in shown[1:4]] == [
        "stripe-per-node = alcf-48-osts", "all-osts", "alcf-48-osts-8mib"]
    assert [p.config["lustre.stripe_count"] for p in shown[1:4]] == [16, 56, 16]
    out = io.StringIO()
    res = CampaignLoop(c, progress=False, out=out).run()
    ran = sorted(res.study.get_trials(deepcopy=False), key=lambda t: t.number)
    assert [trialrecord.read(t).rule_of_thumb for t in ran[:4]] == ["", "stripe-per-node = alcf-48-osts", "all-osts",
                                                                    "alcf-48-osts-8mib"]
    assert "trial   1 (rule of thumb stripe-per-node = alcf-48-osts)" in out.getvalue()
    assert len(trialrecord.ran_trials(res.study.get_trials(deepcopy=False))) == 6  # the rules count as trials
    text = summary_text(res.runtime, res.study)
    assert "best rule of thumb " in text and "\nrecommendation: " in text
    assert "\nbest rule of thumb: " in text  # the search's figure of the best rule, beside the default's
    conf = res.study.user_attrs["confirmation"]
    assert conf["rule"]["name"] in {"stripe-per-node = alcf-48-osts", "all-osts", "alcf-48-osts-8mib"}


def test_rules_of_thumb_can_be_left_out(tmp_path: Path) -> None:
    c = model_campaign(tmp_path, trials=3, sampler={"name": "tpe", "seed": 1, "rules_of_thumb": False})
    shown, _ = proposals(c, Runtime.build(c), 3)
    assert not any(p.rule for p in shown)


def test_space_lists_the_rules_of_thumb_with_their_sources(capsys: pytest.CaptureFixture[str]) -> None:
    from autotune.cli import main

    root = Path(__file__).resolve().parents[3]
    assert main(["space", str(root / "experiments" / "campaigns" / "model-theta-ior.yaml")]) == 0
    out = capsys.readouterr().out
    assert "rules of thumb (run right after the default):" in out
    assert "alcf-48-osts-8mib: lustre.stripe_count=48, lustre.stripe_size=8388608  (ALCF Theta I/O talk" in out
    assert "nc_striping=auto" in out

"""The fallback's evaluation: simulated campaigns with a rule of thumb, and their table."""

from __future__ import annotations

from experiments.evaluation.confirm_eval import calibrate, campaign
from experiments.evaluation.confirm_rule import compact, markdown


def test_a_campaign_with_a_rule_passes_it_to_the_confirmation_and_scores_what_is_exported() -> None:
    scale = calibrate("two-sided/sd")
    camps = [campaign("two-sided/sd", scale, 0.0, s, 6, rule=r) for s in range(3) for r in (None, 0.0, -0.10)]
    for c in camps:
        assert (c["recommended"] == "rule") == c["recommends_rule"]  # the rule is exported exactly when recommended
        assert c["rule"] is not None or not c["recommends_rule"]
        if c["recommends_rule"]:
            assert abs(c["recommended_true_gain"] - c["rule"]) < 1e-9
    text = markdown(compact(camps), 0)
    assert "| two-sided/sd | 6 | -10% |" in text and "| two-sided/sd | 6 | none |" in text

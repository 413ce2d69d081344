"""What ``hints`` and ``export`` recommend from a study: only settings that can act and that took effect."""

from __future__ import annotations

import optuna

from autotune import trialrecord
from autotune.campaign import shown_not_in_effect
from autotune.service._hints import recommended


def test_exports_leave_out_aggregators_beside_a_fixed_disable_and_settings_not_in_effect() -> None:
    """A confirmed cb_nodes beside a fixed romio_cb_write=disable is inert; a setting its trial showed not in
    effect (cray_cb_nodes_multiplier) is not exported either."""
    study = optuna.create_study(direction="maximize")
    for value, missing in ((2.0, {}), (3.0, {"cray_cb_nodes_multiplier": {"requested": "2", "why": "capped"}})):
        t = study.ask()
        trialrecord.write(t, hints_not_in_effect=missing)
        study.tell(t, value)
    best = study.trials[0]
    assert shown_not_in_effect(study, best) == {}
    conf = {"winner": "trial 1", "candidates": [{"label": "default", "trial": -1}, {"label": "trial 1", "trial": 1}],
            "recommended": {"mpiio.cb_nodes": 97, "lustre.stripe_count": 8, "cray.cb_nodes_multiplier": 2}}
    trialrecord.write_study(study, confirmation=conf)
    missing = shown_not_in_effect(study, best)  # the confirmed winner's trial, not the best of the search
    assert set(missing) == {"cray_cb_nodes_multiplier"}
    rec = trialrecord.StudyRecord(fixed={"mpiio.romio_cb_write": "disable"}, metric="write_bandwidth",
                                  pattern={"phases": ["write"]}, confirmation=conf)
    assert recommended(rec, best, {}, {}, missing) == {"mpiio.romio_cb_write": "disable", "lustre.stripe_count": 8}

"""The exploration policy: the history speaks before the model, and decides where the model cannot."""

from __future__ import annotations

import random
from pathlib import Path

import optuna
import pytest
from optuna.trial import TrialState

from autotune.campaign import Runtime, load_campaign
from autotune.service import Policy
from autotune.service._asktell import ask
from autotune.service._policy import Measured, parameters_that_matter, predicted, why_rejected

EXAMPLE = Path(__file__).resolve().parents[2] / "experiments" / "campaigns" / "model-theta-ior.yaml"
MIB = 1 << 20
METRIC = "write_bandwidth_mib_s"


@pytest.fixture(scope="module")
def rt() -> Runtime:
    return Runtime.build(load_campaign(EXAMPLE))


def cfg(count: int, size: int) -> dict[str, int]:
    return {"lustre.stripe_count": count, "lustre.stripe_size": size}


BEST = cfg(48, 8 * MIB)


def test_a_candidate_near_a_measured_slow_configuration_is_rejected_though_the_model_accepts_it(rt: Runtime) -> None:
    history: list[Measured] = [(BEST, 10000.0), (cfg(40, 16 * MIB), 3000.0)]
    candidate = cfg(42, 16 * MIB)  # within 10% of 40 stripes, same stripe size
    assert why_rejected(rt.space, candidate, BEST, METRIC, True, 0.25) == ""  # the model alone: fine
    assert why_rejected(rt.space, candidate, BEST, METRIC, True, 0.25, history) == "history"
    assert why_rejected(rt.space, cfg(30, 16 * MIB), BEST, METRIC, True, 0.25, history) == ""  # not near: model


def test_a_near_measurement_within_the_bound_does_not_overrule_the_model(rt: Runtime) -> None:
    """Either objection rejects: the history may catch what the model misses, never vouch against it."""
    slow = cfg(1, 64 * 1024)
    assert why_rejected(rt.space, slow, BEST, METRIC, True, 0.25) == "model"
    assert why_rejected(rt.space, slow, BEST, METRIC, True, 0.25, [(BEST, 10000.0), (slow, 9000.0)]) == "model"
    # the model's check off (Policy.model_check): the history alone judges, as where the model cannot
    assert why_rejected(rt.space, slow, BEST, METRIC, True, 0.25, model=False) == ""
    assert why_rejected(rt.space, slow, BEST, METRIC, True, 0.25, [(BEST, 10000.0), (slow, 5000.0)], model=False) \
        == "history"


def test_a_parameter_the_history_shows_harmless_does_not_count_for_nearness(rt: Runtime) -> None:
    history: list[Measured] = [(cfg(48, 8 * MIB), 10000.0), (cfg(48, MIB), 9800.0),
                               (cfg(8, 8 * MIB), 2000.0), (cfg(12, MIB), 2100.0)]
    assert parameters_that_matter(rt.space, history, 0.25) == ["lustre.stripe_count"]
    # 8 stripes of 1 MiB were never measured, but 8 stripes were, and the stripe size did not matter
    assert why_rejected(rt.space, cfg(8, MIB), BEST, METRIC, True, 0.25, history) == "history"
    # one measured value of a parameter says nothing about it: it still matters
    assert parameters_that_matter(rt.space, history[:1], 0.25) == ["lustre.stripe_count", "lustre.stripe_size"]


def test_a_value_never_measured_is_not_judged_harmless(rt: Runtime) -> None:
    """Sizes of 1 and 8 MiB did not matter; 64 KiB was never tried: the history cannot vouch for it."""
    history: list[Measured] = [(cfg(48, 8 * MIB), 10000.0), (cfg(48, MIB), 9800.0), (cfg(44, 8 * MIB), 9900.0)]
    tiny = cfg(48, 64 * 1024)
    assert parameters_that_matter(rt.space, history, 0.25) == []  # nothing measured made a difference
    assert parameters_that_matter(rt.space, history, 0.25, tiny) == ["lustre.stripe_size"]
    assert why_rejected(rt.space, tiny, BEST, METRIC, True, 0.25) == "model"
    assert why_rejected(rt.space, tiny, BEST, METRIC, True, 0.25, history) == "model"


def test_where_the_model_cannot_judge_the_history_decides(rt: Runtime) -> None:
    metric = "job_seconds"  # a production job's own time: the model predicts no such metric
    assert predicted(rt.space, BEST, metric, False) is None
    history: list[Measured] = [(BEST, 1 / 100.0), (cfg(4, MIB), 1 / 400.0)]  # scores: larger is better
    assert why_rejected(rt.space, cfg(4, MIB), BEST, metric, False, 0.25, history) == "history"
    assert why_rejected(rt.space, cfg(20, 2 * MIB), BEST, metric, False, 0.25, history) == ""  # unknown: explored
    assert why_rejected(rt.space, cfg(20, 2 * MIB), BEST, metric, False, 0.25) == ""


def test_ask_hands_out_no_exploration_the_history_advises_against(rt: Runtime, tmp_path: Path) -> None:
    c = load_campaign(EXAMPLE).with_overrides(storage_url=f"sqlite:///{tmp_path}/s.db", workdir=tmp_path)
    rt = Runtime.build(c)
    study = optuna.create_study(study_name=c.study, storage=c.storage, direction="maximize")
    dist = rt.space.distributions()
    slow = [cfg(n, s) for n in (2, 4, 8, 12, 16, 20, 24, 28, 32, 36) for s in (MIB, 4 * MIB)]
    for config, value in [(BEST, 10000.0)] + [(x, 2000.0) for x in slow]:
        study.add_trial(optuna.trial.create_trial(params=rt.space.to_optuna(config), distributions=dist,
                                                  value=value, user_attrs={"ran": True}))
    history = [(x, 2000.0) for x in slow] + [(BEST, 10000.0)]
    handed, sources = [], []
    for i in range(8):
        a = ask(rt, optuna.load_study(study_name=c.study, storage=c.storage), Policy(explore=1.0, max_slowdown=0.25),
                rng=random.Random(i))
        handed.append(a.config)
        sources.append(a.source)
        if a.source == "explore":
            assert why_rejected(rt.space, a.config, BEST, METRIC, True, 0.25, history) == ""
    assert "explore" in sources
    pruned = [t.user_attrs.get("rejected_by") for t in study.get_trials(states=(TrialState.PRUNED,))]
    assert "history" in pruned
    assert len({tuple(sorted(h.items())) for h in handed}) > 1  # each job's own draw: not one proposal for all

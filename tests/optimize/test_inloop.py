"""The model in the loop (``sampler.prior.refit``): the refit step, the share rule, the attrs each trial records."""

from __future__ import annotations

import io
import math
from pathlib import Path
from typing import Any

import optuna
import pytest

from autotune.campaign import Runtime, ran_trials, run_campaign
from autotune.errors import ConfigError
from autotune.model import FIT_NAMES, SPAN, predict
from autotune.optimize._inloop import SHARE_MAX, SOURCE_ATTR, ModelArm, model_losses, share
from autotune.space import BoundSpace, Config
from autotune.testing import wrf_model_campaign

pytest.importorskip("scipy")
METRIC = "write_bandwidth_mib_s"
CONFIGS = [  # stripe count x aggregators x collective buffering: what a campaign's first dozen trials look like
    {"lustre.stripe_count": n, "lustre.stripe_size": 1 << 20, "mpiio.cb_nodes": a, "mpiio.romio_cb_write": cb}
    for n, a, cb in ((1, 1, "automatic"), (4, 4, "enable"), (8, 8, "enable"), (16, 16, "enable"), (32, 32, "enable"),
                     (64, 64, "enable"), (2, 2, "enable"), (16, 8, "enable"), (64, 16, "enable"), (8, 8, "disable"),
                     (32, 32, "disable"), (128, 128, "enable"))
]


def campaign(tmp: Path, **over: Any) -> Any:
    """WRF's history write on Shaheen II's Lustre, run on the model (as tests/optimize/test_local.py)."""
    return wrf_model_campaign(tmp, **{"name": "inloop", "objective": {"metric": METRIC, "repeats": 1},
                                      "budget": {"trials": 12},
                                      "sampler": {"name": "autotune", "seed": 3, "prior": False}, **over})


@pytest.fixture(scope="module")
def space(tmp_path_factory: pytest.TempPathFactory) -> BoundSpace:
    return Runtime.build(campaign(tmp_path_factory.mktemp("inloop"))).space


def _trials(space: BoundSpace, configs: list[Config], truth: Any, model_at: tuple[int, ...] = ()) -> list[Any]:
    """Completed trials of ``configs`` measured on the model with the constants ``truth``."""
    out = []
    for i, cfg in enumerate(configs):
        value = predict(space.pattern, space.system, space.fs.name, {**space.fixed, **cfg}, constants=truth).metric(METRIC)
        attrs = {"ran": True, **({SOURCE_ATTR: "model"} if i in model_at else {})}
        t = optuna.trial.create_trial(params=space.to_optuna({**space.fixed, **cfg}), distributions=space.distributions(),
                                      value=value, user_attrs=attrs)
        t.number = i
        out.append(t)
    return out


def _log_move(arm: ModelArm, name: str) -> float:
    return math.log(getattr(arm.constants, name) / getattr(arm.start, name))


def test_refit_moves_a_contradicted_constant_toward_the_data(space: BoundSpace) -> None:
    arm = ModelArm(space, METRIC, True, seed=0)
    truth = arm.start.with_(write_latency=arm.start.write_latency * 3)  # each request 3x slower than the profile says
    assert arm.update(_trials(space, CONFIGS, truth))
    assert arm.names == FIT_NAMES["lustre"] and arm.fitted_on == len(CONFIGS)
    assert 2.0 < arm.constants.write_latency / arm.start.write_latency < 3.3   # most of the way to 3
    assert arm.attrs(len(CONFIGS))["model_moved"]["write_latency"] > 1.0
    assert arm.rho > 0.9  # the refitted model now ranks the runs as measured


def test_refit_stays_within_its_bounds(space: BoundSpace) -> None:
    arm = ModelArm(space, METRIC, True, seed=0)
    truth = arm.start.with_(write_latency=arm.start.write_latency * 1e3)  # beyond what the fit may reach
    arm.update(_trials(space, CONFIGS, truth))
    for n in arm.names:
        assert 1 / SPAN * (1 - 1e-9) <= getattr(arm.constants, n) / getattr(arm.start, n) <= SPAN * (1 + 1e-9)
    assert arm.constants.write_latency / arm.start.write_latency == pytest.approx(SPAN, rel=0.05)


def test_with_little_data_the_prior_keeps_constants_near_the_profile(space: BoundSpace) -> None:
    truth_arm = ModelArm(space, METRIC, True, seed=0)
    truth = truth_arm.start.with_(write_latency=truth_arm.start.write_latency * 3)
    one, many = ModelArm(space, METRIC, True, seed=0), ModelArm(space, METRIC, True, seed=0)
    one.update(_trials(space, CONFIGS[:1], truth))  # the default alone
    many.update(_trials(space, CONFIGS, truth))
    # one run 1.66x slower than predicted: the constants that can explain it share the move (none beyond x2.5,
    # the truth being x3), the ones that cannot act at the default configuration stay at the profile's values
    assert all(abs(_log_move(one, n)) < math.log(2.5) for n in one.names)
    assert abs(_log_move(one, "lock_time")) < 0.01 and abs(_log_move(one, "piece_cost")) < 0.05
    assert abs(_log_move(one, "write_latency")) < abs(_log_move(many, "write_latency"))  # more runs, closer to x3
    assert math.isnan(one.rho)  # too few runs to judge the ranking: no share after the start
    assert one.share(1) == 0.0


def test_the_share_rule() -> None:
    assert share(1.0, 0) == SHARE_MAX == 0.5
    assert share(0.5, 0) == pytest.approx(0.25)      # halfway between RHO_LOW 0.2 and RHO_HIGH 0.8
    assert share(0.2, 0) == 0.0 and share(-0.5, 0) == 0.0 and share(math.nan, 0) == 0.0
    assert share(0.9, 1) == pytest.approx(0.25) and share(0.9, 3) == pytest.approx(0.0625)
    assert share(0.9, 4) == 0.0                       # 0.031 < SHARE_MIN: the search alone


def test_losses_count_model_proposals_since_its_last_clear_win(space: BoundSpace) -> None:
    arm = ModelArm(space, METRIC, True, seed=0)
    trials = _trials(space, CONFIGS[:6], arm.start, model_at=(1, 2, 3))
    values = [100.0, 200.0, 201.0, 150.0, 300.0, 250.0]  # model: a clear win, a win by noise (<3%), a loss
    for t, v in zip(trials, values, strict=True):
        t.value = v
    assert model_losses(trials, True) == 2
    trials[5].user_attrs[SOURCE_ATTR] = "model"  # a fourth model proposal, behind the search's 300
    assert model_losses(trials, True) == 3
    assert model_losses([*trials[:2]], True) == 0


def test_turns_follow_the_start_then_the_accumulated_share(space: BoundSpace) -> None:
    arm = ModelArm(space, METRIC, True, top=3, seed=0)
    assert all(arm.turn(n_model, 2) for n_model in range(3))  # the start: the first 3 proposals
    arm.rho, arm.losses = 0.5, 0  # share 0.25: one proposal in four
    turns = [arm.turn(3, 10) for _ in range(12)]
    assert sum(turns) == 3 and turns[3] and turns[7] and turns[11]
    arm.losses = 5
    assert not any(arm.turn(3, 10) for _ in range(20))


def test_a_metric_the_model_cannot_predict_keeps_it_out_of_the_loop(space: BoundSpace) -> None:
    arm = ModelArm(space, "frames_per_second", True, seed=0)
    trials = _trials(space, CONFIGS, arm.start)
    assert arm.update(trials) and arm.names == () and math.isnan(arm.rho)
    assert not any(arm.turn(n, len(trials)) for n in range(6)) and arm.propose(set()) is None
    assert arm.attrs(len(trials)) == {"model_constants": {}, "model_moved": {}, "model_fitted_on": len(trials),
                                      "model_rho": None, "model_share": 0.0}


def _refit_campaign(tmp: Path, **over: Any) -> Any:
    return campaign(tmp, sampler={"name": "autotune", "seed": 1, "prior": {"top": 3, "refit": True},
                                  "rules_of_thumb": False}, **over)  # the model's own start, right after the default


def test_trials_carry_the_constants_in_force_and_who_proposed_them(tmp_path: Path) -> None:
    res = run_campaign(_refit_campaign(tmp_path), out=io.StringIO())
    trials = sorted(ran_trials(res.study), key=lambda t: t.number)
    assert len(trials) == 12
    for t in trials:
        assert set(t.user_attrs["model_constants"]) == set(FIT_NAMES["lustre"])
        assert isinstance(t.user_attrs["model_moved"], dict) and "model_share" in t.user_attrs
    assert trials[0].user_attrs.get("is_default") and SOURCE_ATTR not in trials[0].user_attrs
    assert [t.user_attrs[SOURCE_ATTR] for t in trials[1:4]] == ["model"] * 3  # the refitting start
    assert {t.user_attrs[SOURCE_ATTR] for t in trials[4:]} <= {"model", "pattern", "tpe"}
    # refitted before every trial up to REFIT_ALWAYS (10) completed ones, then after 20% more (12)
    assert [t.user_attrs["model_fitted_on"] for t in trials] == [*range(11), 10]
    assert not any(t.user_attrs.get("initial") for t in trials)  # nothing enqueued: the sampler proposes the start


def test_refit_is_checked_at_the_edge(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="sampler.prior.refit"):
        campaign(tmp_path, sampler={"name": "tpe", "prior": {"refit": True}})
    with pytest.raises(ConfigError, match="sampler.prior.refit"):
        campaign(tmp_path, sampler={"name": "autotune", "prior": {"refit": "yes"}})

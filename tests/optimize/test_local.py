"""The ``autotune`` sampler: TPE with pattern-search moves around the incumbent."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import optuna
import pytest

from autotune.campaign import Runtime, ran_trials, run_campaign
from autotune.errors import ConfigError
from autotune.optimize import AutotuneSampler, make_sampler
from autotune.optimize._local import _apply
from autotune.testing import wrf_model_campaign


def campaign(tmp: Path, **over: Any) -> Any:
    return wrf_model_campaign(tmp, **{"name": "local", "objective": {"metric": "write_bandwidth_mib_s", "repeats": 1},
                                      "budget": {"trials": 24},
                                      "sampler": {"name": "autotune", "seed": 3, "prior": False}, **over})


def test_steps_stay_in_range_and_alignment_copies_a_value(tmp_path: Path) -> None:
    space = Runtime.build(campaign(tmp_path)).space
    p = {q.name: q for q in space.active}
    count, size, cb, mode = p["lustre.stripe_count"], p["lustre.stripe_size"], p["mpiio.cb_nodes"], p["mpiio.romio_cb_write"]
    assert _apply(count, 35, "*2", {}) == 70 and _apply(count, 35, "/2", {}) == 17
    assert _apply(count, count.high, "*2", {}) is None and _apply(count, 1, "-1", {}) is None  # leaves the range
    assert _apply(count, 4, "*1.25", {}) == 5  # always moves by at least one
    assert _apply(size, size.high, "+1", {}) is None and _apply(size, 20, "-1", {}) == 19  # pow2: the exponent
    assert _apply(mode, "enable", f"={mode.choices.index('disable')}", {}) == "disable"
    assert _apply(cb, 16, "@lustre.stripe_count", {"lustre.stripe_count": 64}) == 64
    assert _apply(cb, 64, "@lustre.stripe_count", {"lustre.stripe_count": 64}) is None  # already equal


def test_local_moves_are_feasible_unseen_and_follow_the_incumbent(tmp_path: Path) -> None:
    c = campaign(tmp_path)
    rt = Runtime.build(c)
    space = rt.space
    sampler = AutotuneSampler(space, optuna.samplers.RandomSampler(seed=0), seed=1, warmup=1, local_fraction=1.0)
    study = optuna.create_study(direction="maximize", sampler=sampler)
    inc = {"lustre.stripe_count": 32, "lustre.stripe_size": 1 << 20, "mpiio.cb_nodes": 16, "mpiio.romio_cb_write": "enable"}
    worse = {**inc, "lustre.stripe_count": 2}
    for cfg, value in ((inc, 100.0), (worse, 10.0)):
        study.add_trial(optuna.trial.create_trial(params=space.to_optuna(cfg), distributions=space.distributions(),
                                                  value=value, user_attrs={"ran": True}))
    seen = [inc, worse]
    first = None
    for _ in range(12):
        t = study.ask(fixed_distributions=space.distributions())
        cfg = space.from_optuna(t.params)
        assert space.feasible(cfg) and cfg not in seen
        first = first or cfg
        seen.append(cfg)
        changed = {k for k in inc if cfg[k] != inc[k]}
        assert 1 <= len(changed) <= 3  # one step, a diagonal, or an alignment (+ a categorical change)
        study.tell(t, 1.0)
    # the aligned move comes first: aggregators = stripe count (KAUST Shaheen II training)
    assert first is not None and first["mpiio.cb_nodes"] == first["lustre.stripe_count"] == 32


def test_autotune_sampler_is_the_default_and_options_are_checked(tmp_path: Path) -> None:
    c = campaign(tmp_path)
    space = Runtime.build(c).space
    assert isinstance(make_sampler({"name": "autotune"}, space), AutotuneSampler)
    assert isinstance(make_sampler({"name": "tpe"}, space), optuna.samplers.TPESampler)
    with pytest.raises(ConfigError, match="local_fraction"):
        make_sampler({"name": "autotune", "options": {"local_fraction": 2}}, space)
    assert make_sampler({"name": "autotune"}, space).early is None  # type: ignore[attr-defined]
    with pytest.raises(ConfigError, match=r"sampler.options: unknown key 'n_startup_trials' \(allowed: none\)"):
        make_sampler({"name": "random", "options": {"n_startup_trials": 3}}, space)


def test_gp_trials_put_a_gp_before_tpe(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    c = campaign(tmp_path, sampler={"name": "autotune", "seed": 0, "prior": False, "options": {"gp_trials": 10}},
                 budget={"trials": 12})
    space = Runtime.build(c).space
    s = make_sampler(c.sampler, space)
    assert isinstance(s, AutotuneSampler) and isinstance(s.early, optuna.samplers.GPSampler) and s.early_trials == 10
    res = run_campaign(c, out=io.StringIO())
    assert len(ran_trials(res.study)) == 12


def test_in_a_campaign_half_the_proposals_after_warm_up_are_local_moves(tmp_path: Path) -> None:
    c = campaign(tmp_path, sampler={"name": "autotune", "seed": 0, "prior": False})
    res = run_campaign(c, out=io.StringIO())
    trials = res.study.get_trials(deepcopy=False)
    moved = [t for t in trials if t.system_attrs.get("autotune:move") not in (None, "bridge")]
    assert len(ran_trials(res.study)) == 24
    assert 8 <= len(moved) <= 12, [t.system_attrs.get("autotune:move") for t in trials]
    bridged = [t for t in trials if t.system_attrs.get("autotune:move") == "bridge"]
    assert bridged and all(t.number % 2 == 0 for t in bridged)  # bridges take the model's turns, not the moves'
    moved += bridged
    assert not any(t.user_attrs.get("infeasible") for t in moved)  # moves are checked against the rules
    assert all(t.number >= 4 for t in moved)  # not before the warm-up


def test_bridges_can_be_turned_off(tmp_path: Path) -> None:
    c = campaign(tmp_path, sampler={"name": "autotune", "seed": 0, "prior": False, "options": {"bridge": False}})
    res = run_campaign(c, out=io.StringIO())
    moves = [t.system_attrs.get("autotune:move") for t in res.study.get_trials(deepcopy=False)]
    assert "bridge" not in moves and any(moves)  # pattern-search moves only


def test_sampler_options_are_checked_by_the_samplers_schema_at_load(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"sampler.options: unknown key 'colour' \(allowed: .*local_fraction"):
        campaign(tmp_path, sampler={"name": "autotune", "options": {"colour": "blue"}})
    with pytest.raises(ConfigError, match=r"sampler.options.warmup: 'four' is not an integer"):
        campaign(tmp_path, sampler={"name": "autotune", "options": {"warmup": "four"}})
    with pytest.raises(ConfigError, match=r"sampler.options.population: True is not an integer"):
        campaign(tmp_path, sampler={"name": "ga", "options": {"population": True}})

"""Model-informed start, warm start, campaign keys, adaptive repetitions in a campaign."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from autotune.campaign import Runtime, parse_campaign, ran_trials, run_campaign
from autotune.errors import ConfigError
from autotune.optimize import candidates, model_metric, model_ranked, prior_spec, scaled_constants


def campaign(tmp: Path, **over: Any) -> Any:
    data: dict[str, Any] = {
        "name": "opt", "system": "theta", "target": {"filesystem": "projects"},
        "app": {"command": ["ior"], "ranks": 4096, "nodes": 256, "metric": {"extractor": "json"},
                "pattern": {"bytes_per_rank": "1MiB", "transfer_size": "1MiB"}},
        "space": {"use": "lustre-cray", "only": ["lustre.stripe_count", "lustre.stripe_size"]},
        "objective": {"metric": "write_bandwidth_mib_s"}, "budget": {"trials": 8}, "launcher": {"name": "model"},
        "storage": ":memory:", "tracking": {"enabled": False}, "workdir": str(tmp / "work"),
    }
    data.update(over)
    return parse_campaign(data, tmp)


def test_default_sampler_is_autotune_and_adaptive_repeats_are_opt_in(tmp_path: Path) -> None:
    c = campaign(tmp_path)
    assert c.sampler["name"] == "autotune" and not c.objective.adaptive and c.objective.remeasure == 0
    a = campaign(tmp_path, objective={"metric": "write_bandwidth_mib_s", "adaptive": True})
    assert a.objective.adaptive and a.objective.remeasure == 3
    t = campaign(tmp_path, sampler="tpe")
    assert not t.objective.adaptive and prior_spec(t.sampler)["top"] == 0
    assert prior_spec(c.sampler)["top"] == 4 and prior_spec(c.sampler)["diverse"] is True


@pytest.mark.parametrize("over, message", [
    ({"objective": {"adaptive": "yes"}}, "objective.adaptive"),
    ({"objective": {"remeasure": -1}}, "objective.remeasure"),
    ({"sampler": {"name": "autotune", "prior": {"tops": 3}}}, "unknown key 'tops'"),
    ({"sampler": {"name": "autotune", "prior": {"scale": {"ost_write_bw": -2}}}}, "positive number"),
    ({"sampler": {"name": "autotune", "prior": {"diverse": "yes"}}}, "sampler.prior.diverse"),
    ({"sampler": {"name": "autotune", "warm_start": {"study": "x"}}}, "missing required key 'storage'"),
    ({"sampler": {"name": "autotune", "warm_start": {"storage": "s", "study": "x", "top": -1}}}, "warm_start.top"),
])
def test_new_keys_are_validated(tmp_path: Path, over: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        campaign(tmp_path, **over)


def test_model_ranking_finds_the_model_optimum(tmp_path: Path) -> None:
    space = Runtime.build(campaign(tmp_path)).space
    top = model_ranked(space, "write_bandwidth_mib_s", True, top=3)
    assert len(top) == 3 and len({tuple(sorted(t.items())) for t in top}) == 3
    values = [model_metric(space, t, "write_bandwidth_mib_s") for t in top]
    assert values == sorted(values, key=lambda v: v or 0.0, reverse=True)
    default = model_metric(space, space.default_config(), "write_bandwidth_mib_s")
    assert values[0] is not None and default is not None and values[0] > 5 * default
    wrong = scaled_constants(space, {"ost_write_bw": 0.5, "write_latency": 2.0})
    assert wrong.ost_write_bw == pytest.approx(space_constants(space).ost_write_bw / 2)
    with pytest.raises(ConfigError, match="unknown model constant"):
        scaled_constants(space, {"nope": 2})


def test_a_sampled_ranking_is_refined_by_coordinate_ascent(tmp_path: Path) -> None:
    """Spaces larger than the candidate limit are ranked on a sample, then climbed on the model."""
    space = Runtime.build(campaign(tmp_path)).space
    metric = "write_bandwidth_mib_s"
    best_of_all = max(model_metric(space, c, metric) or 0.0 for c in candidates(space, limit=10**6))
    sampled = max(model_metric(space, c, metric) or 0.0 for c in candidates(space, limit=20, seed=0))
    refined = model_ranked(space, metric, True, top=3, limit=20)
    values = [model_metric(space, c, metric) or 0.0 for c in refined]
    assert sampled < best_of_all  # the sample alone misses the optimum ...
    assert values[0] >= best_of_all and values == sorted(values, reverse=True)  # ... the climb finds it
    assert len({tuple(sorted(c.items())) for c in refined}) == 3 and all(space.feasible(c) for c in refined)


def space_constants(space: Any) -> Any:
    from autotune.model import constants_for

    return constants_for(space.system, space.fs)


def test_campaign_starts_with_default_then_model_ranked(tmp_path: Path) -> None:
    res = run_campaign(campaign(tmp_path, objective={"metric": "write_bandwidth_mib_s", "adaptive": True}),
                       progress=False)
    trials = ran_trials(res.study)
    assert trials[0].user_attrs.get("is_default")  # then the rules of thumb (256 nodes, 56 OSTs), then the model
    assert [t.user_attrs.get("rule_of_thumb") for t in trials[1:4]] == [
        "stripe-per-node = all-osts", "alcf-48-osts", "alcf-48-osts-8mib"]
    assert trials[4].user_attrs.get("initial")  # the model's picks that are not already a rule's configuration
    conf = res.study.user_attrs["confirmation"]  # re-measured (interleaved with the default) before recommending
    space = Runtime.build(campaign(tmp_path)).space
    by_number = {f"trial {t.number}": space.from_optuna(t.params) for t in trials}
    rated = {k: model_metric(space, cfg, "write_bandwidth_mib_s") or 0.0 for k, cfg in by_number.items()}
    first = max(rated[f"trial {t.number}"] for t in trials[1:5])  # the model's first pick, unless a rule is it
    winner = rated[conf["winner"]] if conf["winner"] in rated else 0.0
    assert first == max(model_metric(space, c, "write_bandwidth_mib_s") or 0.0 for c in by_number.values())
    assert winner >= 0.9 * first  # the model's first choice, or one the 3 confirmation rounds cannot tell from it
    off = run_campaign(campaign(tmp_path, study="no-confirm", objective={"metric": "write_bandwidth_mib_s",
                                                                         "adaptive": True, "confirm": 0}), progress=False)
    assert "recommended" in off.study.user_attrs  # without the confirmation, the adaptive re-measurement


def test_adaptive_runs_fewer_repetitions_than_fixed(tmp_path: Path) -> None:
    base = {"sampler": {"name": "autotune", "seed": 2, "prior": False}, "budget": {"trials": 12}}
    adaptive = run_campaign(campaign(tmp_path, **base, objective={"metric": "write_bandwidth_mib_s", "repeats": 3,
                                                                   "adaptive": True}), progress=False)
    fixed = run_campaign(campaign(tmp_path, **base, objective={"metric": "write_bandwidth_mib_s", "repeats": 3,
                                                                "adaptive": False}), progress=False)
    reps = [sum(len(t.user_attrs["repetitions"]) for t in ran_trials(r.study)) for r in (adaptive, fixed)]
    assert reps[1] == 36 and reps[0] < reps[1]


def test_warm_start_enqueues_the_earlier_best_and_adds_history(tmp_path: Path) -> None:
    storage = f"sqlite:///{tmp_path / 'earlier.db'}"
    earlier = run_campaign(campaign(tmp_path, storage=storage, study="earlier", sampler={"name": "random", "seed": 1}),
                           progress=False)
    best = max(ran_trials(earlier.study), key=lambda t: t.value or 0)
    warm = campaign(tmp_path, study="now", sampler={"name": "autotune", "prior": False, "rules_of_thumb": False,
                                                    "warm_start": {"storage": storage, "study": "earlier", "top": 2}})
    res = run_campaign(warm, progress=False)
    ran = ran_trials(res.study)
    assert ran[1].params == best.params and len(ran) == 8  # history does not count towards the budget
    history = [t for t in res.study.trials if "warm_start_of" in t.user_attrs]
    assert len(history) == len(ran_trials(earlier.study))
    with pytest.raises(ConfigError, match="not found"):
        run_campaign(campaign(tmp_path, study="x", sampler={"name": "autotune", "warm_start": {
            "storage": storage, "study": "missing"}}), progress=False)

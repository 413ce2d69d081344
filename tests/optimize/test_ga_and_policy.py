"""GA sampler, adaptive repetition policy, re-measurement."""

from __future__ import annotations

import optuna

from autotune.optimize import Candidate, GASampler, RepetitionPolicy, recommend, remeasure


def _objective(trial: optuna.Trial) -> float:
    x = trial.suggest_int("x", 0, 31)
    y = trial.suggest_categorical("y", ["a", "b", "c"])
    return -abs(x - 20) + (5 if y == "b" else 0)


def test_ga_population_then_children_keep_elites() -> None:
    study = optuna.create_study(direction="maximize", sampler=GASampler(seed=0))
    study.optimize(_objective, n_trials=15)
    first = max(t.value or 0 for t in study.trials)
    study.optimize(_objective, n_trials=60)
    assert study.best_value >= first  # elitism: the best is never lost
    assert study.best_value >= 2
    params = {(t.params["x"], t.params["y"]) for t in study.trials[15:]}
    assert len(params) > 20  # children differ (mutation, no duplicates of evaluated points)


def test_ga_rejects_bad_settings() -> None:
    import pytest

    with pytest.raises(ValueError):
        GASampler(population=1)
    with pytest.raises(ValueError):
        GASampler(mutation=1.5)


def test_repetition_policy_races_against_the_incumbent() -> None:
    fixed = RepetitionPolicy(3)
    assert fixed.more([1.0], 100.0, True) and not fixed.more([1, 2, 3], 100.0, True)
    p = RepetitionPolicy(3, adaptive=True, margin=0.1)
    assert not p.more([50.0], 100.0, True)  # cannot win: stop after one run
    assert p.more([95.0], 100.0, True)  # may win: repeat
    assert p.more([None], 100.0, True)  # a failed run: try again
    assert not p.more([120.0], None, True)  # the first configuration: one run, re-measured only if it stays good
    assert p.more([None], None, True)  # ... unless that run failed
    assert not p.more([95.0, 93.0], 100.0, True)  # after 2 runs the margin is halved: 95 x 1.05 < 100
    assert p.more([97.0, 93.0], 100.0, True)
    assert not p.more([2.0], 1.0, False) and p.more([1.05], 1.0, False)  # minimise


def test_remeasure_catches_a_lucky_measurement() -> None:
    truth = {0: 100.0, 1: 90.0, 2: 50.0}
    cands = [Candidate(0, [99.0]), Candidate(1, [130.0]), Candidate(2, [40.0])]  # 1 was lucky once
    calls: list[int] = []

    def measure(key: int, n: int) -> list[float]:
        calls.append(key)
        return [truth[key]] * n

    pick = remeasure(cands, measure, top=2, repeats=2, how="median")
    assert pick is not None and pick.key == 0 and sorted(calls) == [0, 1]
    assert recommend([], "best", True) is None

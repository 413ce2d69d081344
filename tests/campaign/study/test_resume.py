"""Resume: per-study run records, seeded samplers that continue, the study's identity, a narrowed space."""

from __future__ import annotations

import importlib.util
import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import optuna
import pytest
import yaml
from optuna.trial import TrialState

from autotune.campaign import CampaignLoop, load_campaign, ran_trials
from autotune.campaign.study._study import best_trial
from autotune.errors import ConfigError
from autotune.optimize import SAMPLERS, resume_seed

MODEL_CAMPAIGN: dict[str, Any] = {
    "name": "resume",
    "app": {"name": "ior-model", "command": ["ior"], "ranks": 64, "nodes": 4, "metric": {"extractor": "json"},
            "pattern": {"bytes_per_rank": "16MiB", "transfer_size": "1MiB", "io_mode": "collective",
                        "library": "mpiio"}},
    "system": "theta", "target": {"filesystem": "projects"}, "space": {"use": "lustre-cray"},
    "objective": {"metric": "write_bandwidth_mib_s", "direction": "maximize", "repeats": 1, "confirm": 0},
    "budget": {"trials": 6, "run_timeout": "60s"},
    "sampler": {"name": "random", "seed": 1},
    "launcher": {"name": "model"},
    "tracking": {"enabled": False},
}
# optional dependencies a sampler needs (the factory refuses without them, naming the install command)
NEEDS = {"gp": "torch", "cmaes": "cmaes"}


def model_campaign(tmp_path: Path, **over: Any) -> Path:
    data = {**MODEL_CAMPAIGN, "workdir": str(tmp_path / "work"), **over}
    path = tmp_path / f"{data['name']}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def run(path: Path, out: io.StringIO | None = None, **over: Any) -> Any:
    c = load_campaign(path)
    if over:
        c = c.with_overrides(**over)
    return CampaignLoop(c, progress=False, out=out or open(os.devnull, "w")).run()


def run_to(path: Path, trials: int, out: io.StringIO | None = None) -> Any:
    c = load_campaign(path)
    return run(path, out, budget=c.budget.__class__(trials, None, c.budget.run_timeout))


def ran_configs(study: optuna.Study) -> list[tuple[Any, ...]]:
    return [tuple(sorted(t.params.items())) for t in ran_trials(study)]


# -- run records: one directory per study ---------------------------------------------------------------------

def test_two_studies_in_one_workdir_keep_their_own_run_records(make_campaign: Any) -> None:
    path = make_campaign(budget={"trials": 2})
    alpha = run(path, study="alpha")
    beta = run(path, study="beta")
    work = load_campaign(path).workdir
    for res, name in ((alpha, "alpha"), (beta, "beta")):
        assert res.runtime.run_dir(1, 0) == work / "runs" / name / "trial-0001" / "rep-0"
        command = (work / "runs" / name / "trial-0001" / "rep-0" / "command.txt").read_text()
        assert f"AUTOTUNE_CAMPAIGN={name}" in command  # each study's record is its own run's
        assert (work / "runs" / name / "trial-0001" / "rep-0" / "rep0.out").is_file()
    assert not (work / "runs" / "trial-0001").exists()


def test_a_resumed_study_finds_its_own_records(make_campaign: Any) -> None:
    path = make_campaign(budget={"trials": 2})
    run(path, study="alpha")
    run(path, study="beta")
    res = run_to_study(path, "alpha", 3)
    assert len(ran_trials(res.study)) == 3
    assert res.runtime.runs_root == load_campaign(path).workdir / "runs" / "alpha"
    assert sorted(p.name for p in res.runtime.runs_root.iterdir()) == ["trial-0000", "trial-0001", "trial-0002"]
    assert sorted(p.name for p in (res.runtime.runs_root.parent / "beta").iterdir()) == ["trial-0000", "trial-0001"]


def test_an_interrupted_trial_recorded_before_per_study_records_is_found(make_campaign: Any) -> None:
    import json

    from autotune.campaign.trial._runtime import Runtime

    rt = Runtime.build(load_campaign(make_campaign()).with_overrides(study="alpha"))
    old = rt.campaign.workdir / "runs" / "trial-0003" / "rep-1"  # where earlier versions kept every study's
    old.mkdir(parents=True)
    (old / "job.json").write_text(json.dumps({"job_id": "17", "job_name": "autotune-beta-t3"}))
    assert rt.previous_run_dir(3, 1) == rt.run_dir(3, 1)  # another study's job: never adopted
    (old / "job.json").write_text(json.dumps({"job_id": "17", "job_name": "autotune-alpha-t3"}))
    assert rt.previous_run_dir(3, 1) == old
    rt.run_dir(3, 1).mkdir(parents=True)  # the study's own record wins
    assert rt.previous_run_dir(3, 1) == rt.run_dir(3, 1)


def run_to_study(path: Path, study: str, trials: int) -> Any:
    c = load_campaign(path)
    return run(path, study=study, budget=c.budget.__class__(trials, None, c.budget.run_timeout))


# -- seeded samplers continue after a resume ------------------------------------------------------------------

def test_resume_seed_is_the_seed_from_the_start_and_new_after() -> None:
    assert resume_seed(1, 0) == 1
    assert resume_seed(1, 6) != 1 and resume_seed(1, 6) != resume_seed(1, 8) != resume_seed(2, 8)
    assert resume_seed(1, 6) == resume_seed(1, 6) and 0 <= resume_seed(-5, 3) < 2 ** 31


def test_random_seed_1_resumed_at_6_8_10_12_repeats_nothing(tmp_path: Path) -> None:
    path = model_campaign(tmp_path)
    for n in (6, 8, 10, 12):
        res = run_to(path, n)
    configs = ran_configs(res.study)
    assert len(configs) == 12 and len(set(configs)) == 12


@pytest.mark.parametrize("name", sorted(SAMPLERS.names()))
def test_no_sampler_repeats_a_configuration_after_resume(tmp_path: Path, name: str) -> None:
    if name in NEEDS and importlib.util.find_spec(NEEDS[name]) is None:
        pytest.skip(f"sampler {name} needs the optional package {NEEDS[name]}, not installed here")
    space = {"use": "lustre-cray", "only": ["lustre.stripe_count", "lustre.stripe_size", "mpiio.romio_cb_write"]}
    path = model_campaign(tmp_path, sampler={"name": name, "seed": 5}, space=space)
    for n in (4, 6, 8, 10):
        res = run_to(path, n)
    configs = ran_configs(res.study)
    assert len(configs) == 10 and len(set(configs)) == 10, name


@pytest.mark.slow
def test_a_run_from_the_same_start_is_reproduced(tmp_path: Path) -> None:
    studies = []
    for sub in ("a", "b"):
        (tmp_path / sub).mkdir()
        path = model_campaign(tmp_path / sub, sampler={"name": "tpe", "seed": 5})
        for n in (4, 7):
            res = run_to(path, n)
        studies.append(res.study)
    assert ran_configs(studies[0]) == ran_configs(studies[1])


def test_a_proposal_already_measured_is_not_run_and_a_small_space_ends_exhausted(tmp_path: Path) -> None:
    # one categorical parameter with three choices: the sampler comes back to measured ones
    space = {"use": "lustre-cray", "only": ["mpiio.romio_cb_write"]}
    path = model_campaign(tmp_path, space=space, budget={"trials": 10, "run_timeout": "60s"})
    res = run(path)
    assert res.stopped_by == "exhausted"
    ran = ran_trials(res.study)  # the default measured 'automatic'; then each other choice once
    assert len(ran) == 3 and sorted(t.params["mpiio.romio_cb_write"] for t in ran) == ["automatic", "disable", "enable"]
    for t in res.study.trials:  # the sampler's repeats (if any) were not run
        if t.user_attrs.get("duplicate_of") is not None:
            assert t.state == TrialState.FAIL and not t.user_attrs.get("ran")


class _Repeats(optuna.samplers.RandomSampler):
    """Proposes the lowest value of every parameter, for ever."""

    def sample_independent(self, study: Any, trial: Any, name: str, distribution: Any) -> Any:
        return distribution.choices[0] if hasattr(distribution, "choices") else distribution.low


def test_a_repeated_proposal_is_replaced_by_the_nearest_untried_configuration(tmp_path: Path) -> None:
    # a sampler that only proposes the default's values: each repeat is replaced, nearest first, none counts
    from autotune.campaign.study._untried import nearest_untried

    space = {"use": "lustre-cray", "only": ["lustre.stripe_count"],
             "parameters": {"lustre.stripe_count": {"type": "categorical", "choices": [1, 2, 4, 8, 16, 32, 56],
                                                    "default": 1}}}
    path = model_campaign(tmp_path, space=space, budget={"trials": 5, "run_timeout": "60s"},
                          sampler={"name": "random", "seed": 1, "rules_of_thumb": False})  # the sampler's repeats alone
    c = load_campaign(path)
    loop = CampaignLoop(c, progress=False, out=io.StringIO())
    study = loop.open()
    assert nearest_untried(study, loop.rt.space, {"lustre.stripe_count": 1}) == {"lustre.stripe_count": 2}  # 1: queued
    study.sampler = _Repeats(seed=0)
    n, stopped = loop._loop(study)
    ran = ran_trials(study)
    assert stopped == "trials" and n == len(ran) == 5
    assert [t.params["lustre.stripe_count"] for t in ran] == [1, 2, 4, 8, 16]  # nearest first (log scale)
    replaced = [t for t in study.trials if t.user_attrs.get("replaces") is not None]
    assert len(replaced) == 4 and all(study.trials[t.user_attrs["replaces"]].user_attrs.get("duplicate_of") == 0
                                      for t in replaced)


def test_a_long_integer_range_is_searched_value_by_value_once_its_powers_of_two_are_tried(tmp_path: Path) -> None:
    # 1..100 is offered at 1, 2, 4, ..., 64, 100 first (8 values); a sampler that only repeats itself must not
    # end the campaign there: most values were never tried
    space = {"use": "lustre-cray", "only": ["lustre.stripe_count"],
             "parameters": {"lustre.stripe_count": {"type": "int", "low": 1, "high": 100, "log": True, "default": 1}}}
    path = model_campaign(tmp_path, space=space, budget={"trials": 11, "run_timeout": "60s"},
                          sampler={"name": "random", "seed": 1, "rules_of_thumb": False})
    loop = CampaignLoop(load_campaign(path), progress=False, out=io.StringIO())
    study = loop.open()
    study.sampler = _Repeats(seed=0)
    n, stopped = loop._loop(study)
    counts = [t.params["lustre.stripe_count"] for t in ran_trials(study)]
    assert stopped == "trials" and n == len(counts) == len(set(counts)) == 11
    # 64 and 100 break the stripe-count rule (Theta's 56 OSTs); then the values nearest to the proposal, 1
    assert counts == [1, 2, 4, 8, 16, 32, 3, 5, 6, 7, 9]


@pytest.mark.slow
def test_a_budget_as_large_as_a_small_space_measures_all_of_it(tmp_path: Path) -> None:
    space = {"use": "lustre-cray", "only": ["lustre.stripe_count"],
             "parameters": {"lustre.stripe_count": {"type": "categorical", "choices": [1, 2, 4, 8, 16, 32, 56],
                                                    "default": 1}}}
    for name in ("tpe", "random", "autotune"):
        (tmp_path / name).mkdir()
        path = model_campaign(tmp_path / name, space=space, budget={"trials": 7, "run_timeout": "60s"},
                              sampler={"name": name, "seed": 3})
        res = run(path)
        ran = ran_trials(res.study)
        assert len(ran) == 7 and len({t.params["lustre.stripe_count"] for t in ran}) == 7, name


def test_a_queued_configuration_already_completed_is_not_run_again(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from autotune.cli import main

    path = model_campaign(tmp_path, budget={"trials": 2, "run_timeout": "60s"},
                          sampler={"name": "random", "seed": 1, "rules_of_thumb": False})  # the twin runs third
    res = run(path)
    done = res.study.trials[1]
    res.study.enqueue_trial(done.params)  # e.g. a warm start or a retry naming a measured configuration
    res = run_to(path, 3)
    [twin] = [t for t in res.study.trials if t.user_attrs.get("duplicate_of") is not None]
    assert twin.user_attrs["duplicate_of"] == done.number and twin.params == done.params
    assert twin.state == TrialState.FAIL and not twin.user_attrs.get("ran")
    ran = ran_trials(res.study)
    assert len(ran) == 3 and ran[2].params != done.params
    capsys.readouterr()
    assert main(["status", str(path)]) == 0
    assert "1 repeated a completed configuration (not run)" in capsys.readouterr().out


def test_a_sampler_that_only_repeats_itself_stops_once_nothing_is_untried(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from autotune.campaign.run import _loop
    from autotune.campaign.study import _resume

    for module in (_resume, _loop):  # as for a space too big to count (the loop and the untried search ask)
        monkeypatch.setattr(module, "feasible_count", lambda space: None)
    space = {"use": "lustre-cray", "only": ["mpiio.romio_cb_write"]}
    path = model_campaign(tmp_path, space=space, budget={"trials": 10, "run_timeout": "60s"})
    out = io.StringIO()
    res = run(path, out)
    assert res.stopped_by == "exhausted" and "every configuration the search can reach was tried" in out.getvalue()
    assert len(ran_trials(res.study)) == 3


# -- a study's identity ---------------------------------------------------------------------------------------

def test_changing_the_file_system_is_refused_naming_both(make_campaign: Any) -> None:
    path = make_campaign(budget={"trials": 1})
    run(path)
    data = yaml.safe_load(path.read_text())
    data["target"] = {"filesystem": "shm"}
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError, match=r"target\.filesystem 'disk', the campaign says 'shm'"):
        run(path)
    res = run(path, study="fake-shm")  # another study in the same work directory is fine
    assert len(ran_trials(res.study)) == 1


@pytest.mark.parametrize(("key", "value", "label"), [
    ("system", "cori", "system"),
    ("objective", {"metric": "read_bandwidth_mib_s"}, "objective.metric"),
])
def test_other_identity_changes_are_refused(tmp_path: Path, key: str, value: Any, label: str) -> None:
    path = model_campaign(tmp_path, budget={"trials": 2, "run_timeout": "60s"})
    run(path)
    data = yaml.safe_load(path.read_text())
    data[key] = {**data[key], **value} if isinstance(value, dict) else value
    if key == "system":
        data["target"] = {"filesystem": "scratch"}
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError, match=label):
        run(path)


def test_a_categorical_s_choices_changed_under_a_study_are_refused_naming_both(tmp_path: Path) -> None:
    """Optuna keeps a categorical's value space for a whole study: an added (or dropped, or reordered) choice
    would fail every ask deep inside Optuna; the campaign is refused at start, one line, and the study is intact."""
    listed = {"use": "lustre-cray", "only": ["lustre.stripe_count"], "parameters": {"lustre.stripe_count": {
        "type": "categorical", "choices": [1, 8, 32], "default": 1}}}
    path = model_campaign(tmp_path, space=listed, budget={"trials": 2, "run_timeout": "60s"})
    run(path)
    data = yaml.safe_load(path.read_text())
    data["space"]["parameters"]["lustre.stripe_count"]["choices"] = [1, 8, 16, 32]
    data["budget"]["trials"] = 3
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError, match=r"lustre.stripe_count: the choices \[1, 8, 16, 32\] differ from \[1, 8, 32\]"):
        run(path)
    res = run(path, study="wider")  # another study takes the new choices
    assert len(ran_trials(res.study)) == 3


# -- a narrowed space -----------------------------------------------------------------------------------------

NARROW = {"use": "lustre-cray", "parameters": {
    "lustre.stripe_size": {"type": "pow2", "low": "16MiB", "high": "64MiB", "default": "16MiB"}}}


def test_queued_trials_outside_a_narrowed_space_are_dropped_without_warnings(tmp_path: Path) -> None:
    path = model_campaign(tmp_path, sampler={"name": "autotune", "seed": 1})
    run_to(path, 2)  # the model-informed start leaves configurations queued
    c = load_campaign(path)
    study = optuna.load_study(study_name="resume", storage=c.storage)
    queued = study.get_trials(deepcopy=False, states=(TrialState.WAITING,))
    outside = [t.number for t in queued if t.system_attrs["fixed_params"]["log2(lustre.stripe_size)"] < 24]
    assert outside  # the regression needs queued configurations the narrowing excludes
    data = yaml.safe_load(path.read_text())
    data["space"] = NARROW
    path.write_text(yaml.safe_dump(data))
    out = subprocess.run([sys.executable, "-m", "autotune.cli", "tune", str(path), "--trials", "6"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "Warning" not in out.stderr, out.stderr  # Optuna's warnings do not reach the user
    study = optuna.load_study(study_name="resume", storage=c.storage)
    for n in outside:
        assert f"queued trial {n}: log2(lustre.stripe_size)=" in out.stdout
        t = study.trials[n]
        assert t.state == TrialState.FAIL and "outside the current space" in t.user_attrs["dropped"]
    later = [t for t in ran_trials(study) if t.number > 1 and not t.user_attrs.get("is_default")]
    assert later and all(t.params["log2(lustre.stripe_size)"] >= 24 for t in later)
    assert len(ran_trials(study)) == 6
    status = subprocess.run([sys.executable, "-m", "autotune.cli", "status", str(path)], capture_output=True,
                            text=True, timeout=120)
    assert f"{len(outside)} queued outside the space (dropped)" in status.stdout, status.stdout


def test_a_completed_trial_outside_the_space_is_never_recommended(tmp_path: Path) -> None:
    path = model_campaign(tmp_path, budget={"trials": 8, "run_timeout": "60s"})
    res = run(path)
    best = best_trial(res.study)
    assert best is not None and not best.user_attrs.get("is_default")
    size = best.params["log2(lustre.stripe_size)"]
    data = yaml.safe_load(path.read_text())  # narrow the space to exclude the best's stripe size
    low, high = (size + 1, 26) if size < 26 else (16, size - 1)
    data["space"] = {"use": "lustre-cray", "parameters": {"lustre.stripe_size": {
        "type": "pow2", "low": 1 << low, "high": 1 << high, "default": 1 << low}}}
    path.write_text(yaml.safe_dump(data))
    res = run_to(path, 8)  # the budget is spent: nothing runs, the narrowed space alone changes the pick
    assert res.trials_run_now == 0
    now = best_trial(res.study)
    assert now is not None and now.number != best.number
    assert now.user_attrs.get("is_default") or low <= now.params["log2(lustre.stripe_size)"] <= high
    assert float(best.value or 0) > float(now.value or 0)  # the old best is still the best value: it was excluded
    assert res.summary["best_trial"] == now.number
    assert res.study.user_attrs["space"] == "lustre-cray"  # the space's name (read by `autotune hints`) is kept


def test_a_physical_twin_of_a_measured_configuration_is_not_run(tmp_path: Path) -> None:
    # with collective buffering disabled the aggregators cannot act: those configurations are one run
    from autotune.campaign.study._resume import physical_key

    space = {"use": "lustre-cray", "only": ["mpiio.romio_cb_write", "mpiio.cb_nodes"],
             "parameters": {"mpiio.cb_nodes": {"type": "categorical", "choices": [8, 16, 32], "default": 8}}}
    path = model_campaign(tmp_path, space=space, budget={"trials": 12, "run_timeout": "60s"},
                          sampler={"name": "random", "seed": 2, "rules_of_thumb": False})
    res = run(path)
    space_ = res.runtime.space
    ran = ran_trials(res.study)
    keys = [physical_key(space_, space_.from_optuna(t.params)) for t in ran]
    assert len(keys) == len(set(keys)) == 7  # enable/automatic x 3 aggregator counts, and disable once
    assert res.stopped_by == "exhausted"
    twins = [t for t in res.study.trials if t.user_attrs.get("duplicate_of") is not None]
    assert all(t.state == TrialState.FAIL and not t.user_attrs.get("ran") for t in twins)

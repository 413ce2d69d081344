"""The trial record: every key round-trips, bad writes are refused in one line, studies written before the
format stamp still read (and `autotune status` / `export` / `hints` work on them), and no module outside
``autotune/trialrecord/`` touches the attribute channel by key."""

from __future__ import annotations

import ast
import json
from dataclasses import fields
from pathlib import Path
from typing import Any

import optuna
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import autotune
from autotune import trialrecord
from autotune.cli import main
from autotune.testing import production_campaign

PACKAGE = Path(autotune.__file__).resolve().parent
RECORD = Path(trialrecord.__file__).resolve().parent  # the record's own package: exempt from the scan

# one value of every field, of its type and unlike its default
SAMPLE: dict[str, Any] = {
    "rule_of_thumb": "stripe-per-node",
    "ran": True, "is_default": True, "baseline": True, "initial": True, "retry_of": 3, "warm_start_of": 7,
    "proposed_by": "model", "infeasible": ["stripe_count_le_osts"], "duplicate_of": 2, "replaces": 3, "duplicate_default": True,
    "dropped": "outside the space", "interrupted": True, "error": "exit 1", "rejected_by": "rules",
    "worker": "node1:42", "service": "explore", "service_token_sha256": "ab" * 32, "owner": "ann", "job_id": "4242",
    "host": "login1", "asked_at": 1.5, "expires_at": 2.5, "told_at": 3.5, "exit_status": 3,
    "config": {"lustre.stripe_count": 8}, "repetitions": [1.0, None, 3.0], "repetition_errors": [None, "timeout", None],
    "failed_repetitions": 1, "spread": 0.5, "duration_s": 12.25, "run_info": [{"wall_s": 4.0}],
    "metrics": [{"write_bandwidth_mib_s": 900.0}], "cost": {"cost": 1.5, "exchange_rate": 2.0}, "command": "srun ior",
    "stderr_tail": "warning", "hints": {"romio_cb_write": "enable"}, "hints_in_effect": {"cb_nodes": 4},
    "hints_not_in_effect": {"striping_unit": 1}, "verification": {"x": {"state": "verified"}},
    "hints_took_effect": False, "model_constants": {"b": 1.0}, "model_moved": {"b": 0.1}, "model_fitted_on": 5,
    "model_rho": 0.5, "model_share": 0.25,
}
STUDY_SAMPLE: dict[str, Any] = {
    "system": "theta", "filesystem": "projects", "fs_kind": "lustre", "app": "ior", "space": "lustre-cray",
    "launcher": "model", "metric": "write_bandwidth_mib_s", "direction": "maximize", "repeats": 3,
    "pattern": {"phases": ["write"]}, "fixed": {"mpiio.romio_cb_write": "enable"}, "metric_kind": "bandwidth",
    "plausible_max": 1e5, "space_searched": {"a": "{}"}, "cost": {"exchange_rate": 2.0},
    "confirmation": {"winner": "default"}, "recommended": {"trial": 1}, "best_record": {"v": 1, "upto": 0},
    "confirmation_claim": {"worker": "node1:42", "beat": 1.5, "trials": 3, "key": "ab", "finished": False},
}


def test_the_samples_name_every_field() -> None:
    assert set(SAMPLE) | {trialrecord.VERSION} == {f.name for f in fields(trialrecord.TrialRecord)}
    assert set(STUDY_SAMPLE) | {trialrecord.VERSION} == {f.name for f in fields(trialrecord.StudyRecord)}
    assert all(trialrecord.doc(trialrecord.TrialRecord, k) for k in SAMPLE)


def test_every_key_round_trips_through_a_sqlite_store(tmp_path: Path) -> None:
    study = optuna.create_study(storage=f"sqlite:///{tmp_path}/s.db")
    trial = study.ask()
    trialrecord.write(trial, **SAMPLE)
    study.tell(trial, 1.0)
    rec = trialrecord.read(study.trials[0])
    assert {k: getattr(rec, k) for k in SAMPLE} == SAMPLE
    assert rec.record_version == trialrecord.FORMAT_VERSION
    trialrecord.write_study(study, **STUDY_SAMPLE)
    srec = trialrecord.read_study(optuna.load_study(study_name=study.study_name, storage=f"sqlite:///{tmp_path}/s.db"))
    assert {k: getattr(srec, k) for k in STUDY_SAMPLE} == STUDY_SAMPLE and srec.record_version == 2
    assert trialrecord.study_changes(study, **STUDY_SAMPLE) == {}  # written once: nothing left to write
    study.add_trial(optuna.trial.create_trial(value=2.0, user_attrs=trialrecord.attrs(is_default=True)))
    assert trialrecord.read(study.trials[-1]).is_default


@pytest.mark.parametrize(("values", "message"), [
    ({"bogus": 1}, "trial attribute 'bogus'=1: unknown key (expected one of ran, is_default,"),
    ({"ran": "yes"}, "trial attribute ran='yes': expected bool"),
    ({"retry_of": True}, "trial attribute retry_of=True: expected int | None"),
    ({"repetitions": [1.0, "x"]}, "trial attribute repetitions=[1.0, 'x']: expected list[float | None]"),
    ({"hints": {"a": 1}}, "trial attribute hints={'a': 1}: expected dict[str, str]"),
    ({"record_version": 9}, "trial attribute 'record_version'=9: unknown key"),
])
def test_unknown_keys_and_wrong_types_are_refused_in_one_line(values: dict[str, Any], message: str) -> None:
    study = optuna.create_study()
    trial = study.ask()
    for call in (lambda: trialrecord.write(trial, **values), lambda: trialrecord.attrs(**values)):
        with pytest.raises(trialrecord.RecordError) as err:
            call()
        assert str(err.value).startswith(message) and "\n" not in str(err.value)
    assert trial.user_attrs == {}  # nothing half-written
    with pytest.raises(trialrecord.RecordError, match="study attribute repeats='3': expected int | None"):
        trialrecord.write_study(study, repeats="3")


FINITE = st.floats(allow_nan=False, allow_infinity=False)
TEXT = st.text(max_size=8)
STRATEGIES: dict[str, st.SearchStrategy[Any]] = {
    "bool": st.booleans(), "int": st.integers(-2**40, 2**40), "float": FINITE, "str": TEXT,
}


def _strategy(spelled: str) -> st.SearchStrategy[Any]:
    """A strategy for a field's spelled annotation (the few shapes the record uses)."""
    if spelled.endswith(" | None"):
        return st.none() | _strategy(spelled[: -len(" | None")])
    if spelled in STRATEGIES:
        return STRATEGIES[spelled]
    if spelled.startswith("list["):
        return st.lists(_strategy(spelled[5:-1]), max_size=4)
    if spelled.startswith("dict[str, "):
        inner = spelled[len("dict[str, "):-1]
        values = st.one_of(st.none(), st.booleans(), st.integers(), FINITE, TEXT) if inner == "Any" else _strategy(inner)
        return st.dictionaries(TEXT, values, max_size=3)
    raise AssertionError(f"no strategy for {spelled}")


RECORDS = st.fixed_dictionaries({}, optional={f.name: _strategy(str(f.type)) for f in fields(trialrecord.TrialRecord)
                                              if f.name != trialrecord.VERSION})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(RECORDS)
def test_any_record_round_trips_through_json(values: dict[str, Any]) -> None:
    stored = json.loads(json.dumps(trialrecord.attrs(**values)))  # what an RDB storage keeps
    rec = trialrecord.read(optuna.trial.create_trial(value=1.0, user_attrs=stored))
    assert {k: getattr(rec, k) for k in values} == values
    defaults = trialrecord.TrialRecord()
    assert all(getattr(rec, f.name) == getattr(defaults, f.name) for f in fields(rec)
               if f.name not in values and f.name != trialrecord.VERSION)


def _old_store(tmp_path: Path) -> tuple[Path, str]:
    """A study as the previous format wrote it: raw Optuna calls, the same keys, no ``record_version``."""
    from autotune.campaign import Runtime, load_campaign

    path = production_campaign(tmp_path)
    c = load_campaign(path)
    rt = Runtime.build(c)
    url = f"sqlite:///{c.workdir}/optuna.db"
    c.workdir.mkdir(parents=True, exist_ok=True)
    study = optuna.create_study(study_name=c.study, storage=url, direction="maximize")
    for k, v in {**rt.info(), "space_searched": {n: optuna.distributions.distribution_to_json(d)
                                                 for n, d in rt.space.distributions().items()}}.items():
        study.set_user_attr(k, json.loads(json.dumps(v)))
    default = rt.space.default_config()
    other = dict(default)
    stripes = next(p for p in rt.space.active if p.name == "lustre.stripe_count")
    other["lustre.stripe_count"] = max(v for v in stripes.values() if v != default.get("lustre.stripe_count"))
    for number, (config, value, is_default) in enumerate([(default, 800.0, True), (other, 2400.0, False)]):
        study.add_trial(optuna.trial.create_trial(
            params=rt.space.to_optuna(config), distributions=rt.space.distributions(), value=value,
            user_attrs={"is_default": is_default, "ran": True, "worker": f"old:{number}", "repetitions": [value] * 3,
                        "repetition_errors": [None] * 3, "failed_repetitions": 0, "spread": 0.0, "duration_s": 2.0,
                        "run_info": [{"wall_s": 0.5}] * 3, "config": dict(config), "hints": {}, "command": "ior"}))
    study.add_trial(optuna.trial.create_trial(params=rt.space.to_optuna(other), distributions=rt.space.distributions(),
                                              value=0.0, user_attrs={"infeasible": ["some_rule"]}))
    return path, url


def test_a_study_of_the_previous_format_reads_and_the_commands_work(tmp_path: Path, capsys: Any) -> None:
    path, url = _old_store(tmp_path)
    study = optuna.load_study(study_name=yaml.safe_load(path.read_text())["name"], storage=url)
    recs = [trialrecord.read(t) for t in study.trials]
    assert [r.record_version for r in recs] == [1, 1, 1] and trialrecord.read_study(study).record_version == 1
    assert [r.is_default for r in recs] == [True, False, False] and recs[1].repetitions == [2400.0] * 3
    assert [t.number for t in trialrecord.ran_trials(study.trials)] == [0, 1]
    assert trialrecord.read_study(study).repeats == 3
    assert main(["status", str(path)]) == 0
    out = capsys.readouterr().out
    assert "2 finished (2 complete, 0 failed)" in out and "1 broke a rule (not run: some_rule 1)" in out
    assert "3.00x" in out
    assert main(["status", str(path), "--trials-table"]) == 0
    table = capsys.readouterr().out
    assert "   2 not run: broke the rule(s) some_rule" in table and "hints: -" in table  # no hints: a default
    assert main(["export", str(path), "--format", "json"]) == 0
    best = recs[1].config or {}
    assert json.loads(capsys.readouterr().out)["config"] == {"lustre.stripe_count": best["lustre.stripe_count"]}
    assert main(["hints", str(path), "--storage", url, "--timeout", "300s"]) == 0
    cap = capsys.readouterr()
    assert "trial 1 (exact" in cap.err and "3.00x the default" in cap.err and "lfs setstripe" in cap.out


# -- the channel stays typed: no module but the record's touches trial or study attributes by key -----------------

def _offences(path: Path) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        where = f"{path.relative_to(PACKAGE.parent)}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Attribute) and node.attr in ("user_attrs", "set_user_attr", "set_trial_user_attr"):
            out.append(f"{where}: .{node.attr}")
        if isinstance(node, ast.keyword) and node.arg == "user_attrs" and isinstance(node.value, ast.Dict | ast.DictComp):
            out.append(f"{where}: user_attrs={{...}} (build it with trialrecord.attrs)")
    return out


def test_only_the_record_module_touches_the_attribute_channel() -> None:
    offences = [o for p in sorted(PACKAGE.rglob("*.py")) if RECORD not in p.parents for o in _offences(p)]
    assert offences == []


def test_the_scan_catches_each_way_round(tmp_path: Path) -> None:
    bad = tmp_path / "autotune" / "bad.py"
    bad.parent.mkdir()
    bad.write_text("def f(t, s):\n    t.set_user_attr('ran', True)\n    x = t.user_attrs['ran']\n"
                   "    s._storage.set_trial_user_attr(1, 'ran', True)\n    s.enqueue_trial({}, user_attrs={'ran': True})\n")
    global PACKAGE
    saved, PACKAGE = PACKAGE, tmp_path / "autotune"
    try:
        assert [o.split(": ", 1)[1] for o in _offences(bad)] == [
            ".set_user_attr", ".user_attrs", ".set_trial_user_attr", "user_attrs={...} (build it with trialrecord.attrs)"]
    finally:
        PACKAGE = saved

"""ask / tell / hints from a job script's point of view (a model campaign: nothing runs but the service)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import optuna
import pytest
import yaml
from optuna.trial import TrialState

from autotune.cli import main
from autotune.errors import ConfigError
from autotune.testing import Blackhole, TcpProxy, fresh_postgres_database

LONG = ("--timeout", "300s")  # success paths: a loaded 2-core machine can take seconds to open a store
SERVER = os.environ.get("AUTOTUNE_TEST_POSTGRES_SERVER", "postgresql://postgres@127.0.0.1:5432")


def env_of(text: str) -> dict[str, str]:
    """The variables an `eval "$(autotune ask ...)"` would export (parsed by bash itself)."""
    out = subprocess.run(["bash", "-c", text + '\nprintf "%s\\n%s\\n" "$AUTOTUNE_TRIAL" "$AUTOTUNE_CONFIG_SOURCE"'],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    return {"AUTOTUNE_TRIAL": out[0], "AUTOTUNE_CONFIG_SOURCE": out[1]}


def cli(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "autotune.cli", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=timeout)


def study_of(campaign: Path, storage: str | None = None) -> optuna.Study:
    data = yaml.safe_load(campaign.read_text())
    url = storage or f"sqlite:///{data['workdir']}/optuna.db"
    return optuna.load_study(study_name=data["name"], storage=url)


def test_ask_then_tell_records_a_production_trial(campaign: Path, capsys: Any) -> None:
    assert main(["ask", str(campaign), "--job-id", "4242", "--seed", "0", *LONG]) == 0
    first = env_of(capsys.readouterr().out)
    assert first["AUTOTUNE_CONFIG_SOURCE"] == "default"  # nothing known yet: the job runs the defaults
    assert main(["tell", str(campaign), "--trial", first["AUTOTUNE_TRIAL"], "--value", "1500", *LONG]) == 0
    t = study_of(campaign).trials[0]
    assert t.state == TrialState.COMPLETE and t.value == 1500
    assert t.user_attrs["job_id"] == "4242" and t.user_attrs["service"] == "default" and t.user_attrs["ran"]
    assert main(["ask", str(campaign), "--explore", "0", *LONG]) == 0
    second = env_of(capsys.readouterr().out)
    assert second["AUTOTUNE_CONFIG_SOURCE"] == "best"
    assert main(["tell", str(campaign), "--trial", second["AUTOTUNE_TRIAL"], "--exit-status", "3", *LONG]) == 0
    t2 = study_of(campaign).trials[-1]
    assert t2.state == TrialState.FAIL and "status 3" in t2.user_attrs["error"]


def test_exploration_stays_within_the_predicted_slowdown(campaign: Path, capsys: Any) -> None:
    from autotune.campaign import Runtime, load_campaign
    from autotune.service import Policy, acceptable

    assert main(["ask", str(campaign), "--seed", "0", *LONG]) == 0
    ref = env_of(capsys.readouterr().out)["AUTOTUNE_TRIAL"]
    assert main(["tell", str(campaign), "--trial", ref, "--value", "1000", *LONG]) == 0
    sources = []
    for i in range(6):
        assert main(["ask", str(campaign), "--explore", "1", "--max-slowdown", "0.1", "--seed", str(i), *LONG]) == 0
        sources.append(env_of(capsys.readouterr().out)["AUTOTUNE_CONFIG_SOURCE"])
    assert "explore" in sources
    rt = Runtime.build(load_campaign(campaign))
    study = study_of(campaign)
    best = rt.config_of(study.trials[0])
    for t in study.get_trials(states=(TrialState.RUNNING,)):
        if t.user_attrs["service"] == "explore":
            assert acceptable(rt.space, rt.config_of(t), best, "write_bandwidth_mib_s", True, 0.1)
    with pytest.raises(ConfigError, match="--explore: 2"):
        Policy(explore=2)
    assert main(["ask", str(campaign), "--max-slowdown", "1.5", *LONG]) == 2


def test_only_the_asking_job_can_tell_and_never_twice(campaign: Path, capsys: Any) -> None:
    assert main(["ask", str(campaign), *LONG]) == 0
    ref = env_of(capsys.readouterr().out)["AUTOTUNE_TRIAL"]
    study, number, _ = ref.split(":")
    forged = f"{study}:{number}:{'0' * 32}"
    assert main(["tell", str(campaign), "--trial", forged, "--value", "9e9", *LONG]) == 2
    assert "token does not match" in capsys.readouterr().err
    assert study_of(campaign).trials[0].state == TrialState.RUNNING
    assert main(["tell", str(campaign), "--trial", ref, "--value", "100", *LONG]) == 0
    assert main(["tell", str(campaign), "--trial", ref, "--value", "9e9", *LONG]) == 2  # no overwrite
    assert "already finished" in capsys.readouterr().err
    assert study_of(campaign).trials[0].value == 100
    for bad in ("nonsense", f"{study}:{number}", f"{study}:{number}:{'0' * 32}; rm -rf /"):
        assert main(["tell", str(campaign), "--trial", bad, "--value", "1", *LONG]) == 2


def test_a_job_that_never_tells_expires(campaign: Path, capsys: Any) -> None:
    assert main(["ask", str(campaign), "--expire", "1s", *LONG]) == 0
    capsys.readouterr()
    time.sleep(1.5)
    assert main(["ask", str(campaign), *LONG]) == 0  # any later ask (or tell) fails the expired trial
    t = study_of(campaign).trials[0]
    assert t.state == TrialState.FAIL and "expired" in t.user_attrs["error"]
    assert [s.state for s in study_of(campaign).trials[1:]] == [TrialState.RUNNING]


@pytest.mark.slow
def test_unreachable_or_hung_store_falls_back_within_the_timeout(campaign: Path, tmp_path: Path) -> None:
    hole = Blackhole()
    cache = {"AUTOTUNE_CACHE_DIR": str(tmp_path / "cache")}
    try:
        for url in (f"postgresql://postgres@127.0.0.1:{hole.port}/x", "postgresql://postgres@127.0.0.1:1/x"):
            t0 = time.monotonic()
            res = cli("ask", str(campaign), "--storage", url, "--timeout", "2s", env=cache)
            assert res.returncode == 0, res.stderr
            assert time.monotonic() - t0 < 30
            assert env_of(res.stdout) == {"AUTOTUNE_TRIAL": "", "AUTOTUNE_CONFIG_SOURCE": "fallback-default"}
            assert "default configuration" in res.stderr
    finally:
        hole.close()
    res = cli("tell", str(campaign), "--value", "5", env={"AUTOTUNE_TRIAL": ""})
    assert res.returncode == 0 and "nothing to tell" in res.stderr


@pytest.mark.slow
def test_outage_mid_job_spools_the_tell_and_delivers_it_later(campaign: Path, tmp_path: Path) -> None:
    host, port = "127.0.0.1", 5432
    with fresh_postgres_database(SERVER, f"autotune_svc_{uuid.uuid4().hex[:10]}") as url:
        proxy = TcpProxy((host, port)).start()
        via = url.replace(f"{host}:{port}", f"127.0.0.1:{proxy.port}")
        cache = {"AUTOTUNE_CACHE_DIR": str(tmp_path / "cache")}
        try:
            first = cli("ask", str(campaign), "--storage", via, *LONG, env=cache)
            assert first.returncode == 0, first.stderr
            ref1 = env_of(first.stdout)["AUTOTUNE_TRIAL"]
            told = cli("tell", str(campaign), "--storage", via, "--trial", ref1, "--value", "800", *LONG, env=cache)
            assert told.returncode == 0, told.stderr
            second = cli("ask", str(campaign), "--storage", via, "--explore", "0", *LONG, env=cache)
            ref2 = env_of(second.stdout)["AUTOTUNE_TRIAL"]
            proxy.stop()  # the database goes away while job 2 runs
            down = cli("ask", str(campaign), "--storage", via, "--timeout", "3s", env=cache)
            assert down.returncode == 0 and env_of(down.stdout)["AUTOTUNE_CONFIG_SOURCE"] == "fallback-cache"
            told = cli("tell", str(campaign), "--storage", via, "--trial", ref2, "--value", "900", "--timeout", "3s", env=cache)
            assert told.returncode == 0 and "spooled" in told.stdout
            proxy = TcpProxy((host, port), port=proxy.port).start()  # back
            third = cli("ask", str(campaign), "--storage", via, *LONG, env=cache)  # delivers the spooled tell first
            assert third.returncode == 0, third.stderr
            study = study_of(campaign, url)
            done = {t.number: t.value for t in study.trials if t.state == TrialState.COMPLETE}
            assert done == {0: 800, 1: 900}
        finally:
            proxy.stop()


def test_hints_never_fail_a_job_script(campaign: Path, tmp_path: Path, capsys: Any) -> None:
    assert main(["hints", str(campaign), *LONG]) == 0  # nothing recorded yet
    cap = capsys.readouterr()
    assert cap.out.strip() == "# defaults: nothing to set" and "nothing recorded" in cap.err
    assert main(["ask", str(campaign), "--seed", "0", *LONG]) == 0
    ref = env_of(capsys.readouterr().out)["AUTOTUNE_TRIAL"]
    assert main(["tell", str(campaign), "--trial", ref, "--value", "700", *LONG]) == 0
    assert main(["ask", str(campaign), "--explore", "0", *LONG]) == 0
    ref = env_of(capsys.readouterr().out)["AUTOTUNE_TRIAL"]
    assert main(["tell", str(campaign), "--trial", ref, "--value", "750", *LONG]) == 0
    assert main(["hints", str(campaign), "--format", "json", *LONG]) == 0
    cap = capsys.readouterr()
    assert "from study 'model-theta-ior' trial 1 (exact" in cap.err and '"config"' in cap.out
    missing = tmp_path / "missing.yaml"
    res = cli("hints", str(missing))
    assert res.returncode == 0 and res.stdout.strip() == "# defaults: nothing to set"


def test_hints_from_the_nearest_recorded_pattern(campaign: Path, tmp_path: Path, capsys: Any) -> None:
    assert main(["tune", str(campaign), "--trials", "4"]) == 0
    capsys.readouterr()
    data = yaml.safe_load(campaign.read_text())
    data["name"] = "other-app"
    data["app"]["name"] = "vpic-like"
    data["app"]["pattern"]["bytes_per_rank"] = "2MiB"
    other = tmp_path / "other.yaml"
    other.write_text(yaml.safe_dump(data))
    assert main(["hints", str(other), "--storage", f"sqlite:///{data['workdir']}/optuna.db", *LONG]) == 0
    cap = capsys.readouterr()
    assert "from study 'model-theta-ior'" in cap.err and "nearest pattern (distance 1.0)" in cap.err
    assert "lfs setstripe" in cap.out


def test_a_trial_left_half_asked_is_failed_as_abandoned(campaign: Path, capsys: Any) -> None:
    """A job that gave up waiting for the store mid-ask leaves a RUNNING trial nobody claimed."""
    from autotune.service import expire_stale

    assert main(["ask", str(campaign), *LONG]) == 0
    capsys.readouterr()
    study = study_of(campaign)
    orphan = study.ask()  # what an interrupted ask leaves: RUNNING, no worker, no service attributes
    assert expire_stale(study) == []  # not yet: a campaign worker claims its trial within milliseconds
    assert expire_stale(study, now=time.time() + 200) == [orphan.number]
    t = study_of(campaign).trials[orphan.number]
    assert t.state == TrialState.FAIL and "abandoned" in t.user_attrs["error"]
    assert study_of(campaign).trials[0].state == TrialState.RUNNING  # the real job's trial waits for its tell


def test_hints_by_app_name_from_a_site_store_without_the_campaign_file(campaign: Path, tmp_path: Path,
                                                                       capsys: Any) -> None:
    data = yaml.safe_load(campaign.read_text())
    store = f"sqlite:///{data['workdir']}/optuna.db"
    assert main(["tune", str(campaign), "--trials", "5"]) == 0  # a model campaign: ends with a confirmation
    capsys.readouterr()
    study = study_of(campaign)
    app, system = study.user_attrs["app"], study.user_attrs["system"]
    conf = study.user_attrs["confirmation"]
    assert main(["hints", app, "--storage", store, "--system", system, "--format", "json", *LONG]) == 0
    cap = capsys.readouterr()
    assert f"app {app!r} on {system}" in cap.err and "confirmed" in cap.err
    shown = yaml.safe_load(cap.out)["config"]
    assert {k: v for k, v in shown.items() if k in conf["recommended"]} == conf["recommended"]  # the confirmed settings
    assert set(shown) <= set(conf["recommended"]) | set(study.user_attrs.get("fixed") or {})  # nothing unproven
    for args in (["no-such-app", "--storage", store], [app], [app, "--storage", store, "--system", "cori"],
                 ["$(touch pwned)", "--storage", store], [app, "--storage", "postgresql://nobody@127.0.0.1:1/x",
                                                          "--timeout", "3s"]):
        res = cli("hints", *args)
        assert res.returncode == 0 and res.stdout.strip() == "# defaults: nothing to set", (args, res.stderr)
        assert len(res.stderr.strip().splitlines()) == 1 and "Traceback" not in res.stderr
    assert not (Path.cwd() / "pwned").exists()


def test_the_report_of_a_study_with_production_jobs_shows_them(campaign: Path, tmp_path: Path, capsys: Any) -> None:
    for i, value in enumerate((500.0, 900.0, 700.0)):
        assert main(["ask", str(campaign), "--seed", str(i), "--explore", "1", *LONG]) == 0
        ref = env_of(capsys.readouterr().out)["AUTOTUNE_TRIAL"]
        assert main(["tell", str(campaign), "--trial", ref, "--value", str(value), *LONG]) == 0
    out = tmp_path / "report"
    assert main(["report", str(campaign), "--report", str(out), "--no-tracking"]) == 0
    md = (out / "report.md").read_text()
    assert "production jobs as trials (`autotune ask`/`tell`): 3, 2 of them exploratory" in md
    svg = (out / "figures" / "production.svg").read_text()
    assert "Production jobs as trials" in svg and "exploratory job" in svg


def test_a_best_measured_outside_the_narrowed_space_is_not_handed_out(campaign: Path, capsys: Any) -> None:
    """The space was narrowed after the best was measured: the job gets the defaults, as a trial."""
    from optuna.distributions import IntDistribution

    from autotune.campaign import Runtime, load_campaign

    assert main(["ask", str(campaign), "--seed", "0", *LONG]) == 0
    ref = env_of(capsys.readouterr().out)["AUTOTUNE_TRIAL"]
    assert main(["tell", str(campaign), "--trial", ref, "--value", "1000", *LONG]) == 0
    capsys.readouterr()
    rt = Runtime.build(load_campaign(campaign))
    params = rt.space.to_optuna(rt.space.default_config())
    dists = dict(rt.space.distributions())
    name = next(k for k, d in dists.items() if isinstance(d, IntDistribution))
    wide = dists[name]
    dists[name] = IntDistribution(wide.low, wide.high * 4, log=wide.log, step=wide.step)  # the space it was measured in
    params[name] = dists[name].high
    study_of(campaign).add_trial(optuna.trial.create_trial(value=9000, params=params, distributions=dists,
                                                           user_attrs={"ran": True}))
    assert main(["ask", str(campaign), "--explore", "0", "--format", "json", *LONG]) == 0
    out = yaml.safe_load(capsys.readouterr().out)
    assert out["source"] == "default" and out["trial"]

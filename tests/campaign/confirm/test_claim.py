"""One confirmation per shared campaign: the worker that claims it on the study confirms; a live claim is left
to its worker, a dead one is taken over, a confirmation recorded for the same trials is not redone."""

from __future__ import annotations

import io
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import optuna
import pytest

from autotune import trialrecord
from autotune._storage import GRACE_S
from autotune.campaign import CampaignLoop, load_campaign, summary_text
from autotune.campaign.confirm._sequential import CONFIRM_BASE
from autotune.campaign.file._names import data_dir_name

HOST = socket.gethostname()
ME = f"{HOST}:{os.getpid()}"


def confirmation_runs(log: Path) -> list[int]:
    """The run numbers of the confirmation runs the fake app logged (``FAKE_LOG``)."""
    return [n for n in map(int, log.read_text().split()) if n >= CONFIRM_BASE] if log.exists() else []


def run_loop(path: Path) -> tuple[Any, str]:
    out = io.StringIO()
    res = CampaignLoop(load_campaign(path), progress=False, out=out).run()
    return res, out.getvalue() + summary_text(res.runtime, res.study)


@pytest.fixture
def searched(make_campaign: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, str]:
    """A finished search with no confirmation yet; (campaign with ``confirm: 3``, run log, storage URL)."""
    log = tmp_path / "runs.log"
    monkeypatch.setenv("FAKE_LOG", str(log))
    monkeypatch.setenv("FAKE_SLEEP", "0.05")
    run_loop(make_campaign(objective={"repeats": 1, "confirm": 0}, budget={"trials": 4}))
    path = make_campaign(objective={"repeats": 1, "confirm": 3}, budget={"trials": 4})
    return path, log, f"sqlite:///{tmp_path / 'work' / 'optuna.db'}"


def put_claim(storage: str, worker: str, beat: float) -> None:
    """Another worker's unfinished claim, written as that worker would have (on a different set of trials)."""
    study = optuna.load_study(study_name="fake", storage=storage)
    study.set_user_attr("confirmation_claim", {"worker": worker, "beat": beat, "trials": 3, "key": "0123456789abcdef",
                                               "finished": False})


@pytest.fixture
def live_pid() -> Iterator[int]:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    yield proc.pid
    proc.kill()
    proc.wait()


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_a_live_claim_of_this_host_is_left_to_its_worker(searched: tuple[Path, Path, str], live_pid: int) -> None:
    path, log, storage = searched
    put_claim(storage, f"{HOST}:{live_pid}", time.time() - 10 * GRACE_S)  # this host: the process is what counts
    res, out = run_loop(path)
    assert f"confirmation: worker {HOST}:{live_pid} confirms; its result lands in the study" in out
    assert "confirming:" not in out and not confirmation_runs(log)
    assert trialrecord.read_study(res.study).confirmation is None
    assert trialrecord.read_study(res.study).confirmation_claim["worker"] == f"{HOST}:{live_pid}"  # type: ignore[index]
    assert f"confirmation: worker {HOST}:{live_pid} is running it" in out  # the summary reads the study


def test_a_fresh_claim_of_another_host_is_left_to_its_worker(searched: tuple[Path, Path, str]) -> None:
    path, log, storage = searched
    put_claim(storage, "elsewhere-7:4242", time.time())
    res, out = run_loop(path)
    assert "confirmation: worker elsewhere-7:4242 confirms; its result lands in the study" in out
    assert not confirmation_runs(log) and trialrecord.read_study(res.study).confirmation is None


@pytest.mark.parametrize("claimant", ["dead pid here", "silent other host"])
def test_a_dead_claimant_s_claim_is_taken_over(searched: tuple[Path, Path, str], claimant: str) -> None:
    path, log, storage = searched
    worker, beat = ((f"{HOST}:{dead_pid()}", time.time()) if claimant == "dead pid here"
                    else ("elsewhere-7:4242", time.time() - GRACE_S - 5))
    put_claim(storage, worker, beat)
    res, out = run_loop(path)
    assert f"confirmation: worker {worker} stopped confirming" in out and "this worker takes it over" in out
    runs = confirmation_runs(log)
    assert runs and len(runs) == len(set(runs))
    rec = trialrecord.read_study(res.study)
    assert rec.confirmation is not None and rec.confirmation["rounds"] >= 1
    assert rec.confirmation_claim is not None
    assert rec.confirmation_claim["worker"] == ME and rec.confirmation_claim["finished"]
    assert "is running it" not in out


def test_a_confirmation_recorded_for_the_same_trials_is_not_redone(searched: tuple[Path, Path, str]) -> None:
    path, log, _ = searched
    first, _ = run_loop(path)
    runs = confirmation_runs(log)
    conf = trialrecord.read_study(first.study).confirmation
    assert runs and conf is not None
    again, out = run_loop(path)  # the same finished campaign run once more: nothing new to confirm
    assert f"confirmation: already recorded for these 4 trials (by worker {ME}); not redone" in out
    assert confirmation_runs(log) == runs and trialrecord.read_study(again.study).confirmation == conf
    assert "interleaved rounds" in out  # the summary shows the recorded confirmation


@pytest.mark.slow
def test_two_workers_on_one_sqlite_store_confirm_once(make_campaign: Any, tmp_path: Path) -> None:
    """Both workers share the work directory (run and data directories) and the store; only one confirms."""
    path = make_campaign(objective={"repeats": 1, "confirm": 3}, budget={"trials": 6})
    log = tmp_path / "runs.log"
    storage = f"sqlite:///{tmp_path / 'work' / 'optuna.db'}"
    cmd = [sys.executable, "-m", "autotune.cli", "tune", str(path), "--storage", storage, "--study", "shared"]
    env = {**os.environ, "FAKE_SLEEP": "0.2", "FAKE_LOG": str(log)}
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
             for _ in range(2)]
    outs = [(p.returncode, out, err) for p in procs for out, err in [p.communicate(timeout=400)]]
    for rc, out, err in outs:
        assert rc == 0, err + out
    runs = confirmation_runs(log)
    assert runs and len(runs) == len(set(runs))  # one confirmation: no run number ran twice
    confirmers = [out for _, out, _ in outs if "confirming: the top " in out]
    assert len(confirmers) == 1
    other = next(out for _, out, _ in outs if "confirming: the top " not in out)
    assert "confirms; its result lands in the study" in other or "not redone" in other
    assert "is running it; its result lands in the study" in other or "interleaved rounds" in other
    study = optuna.load_study(study_name="shared", storage=storage)
    rec = trialrecord.read_study(study)
    assert rec.confirmation is not None and rec.confirmation_claim is not None and rec.confirmation_claim["finished"]
    assert rec.confirmation_claim["worker"] in {t.user_attrs.get("worker") for t in study.trials}


def test_a_worker_joining_leaves_the_data_of_a_live_worker_s_confirmation(searched: tuple[Path, Path, str],
                                                                         live_pid: int) -> None:
    path, _, storage = searched
    c = load_campaign(path)
    run = c.data_root / data_dir_name(c.study, CONFIRM_BASE + 65, 0)  # round 1, candidate 1 of the confirmation
    old = c.data_root / data_dir_name(c.study, 40, 0)  # no trial's: stale
    for d in (run, old):
        d.mkdir(parents=True)
    put_claim(storage, f"{HOST}:{live_pid}", time.time())
    CampaignLoop(c, progress=False, out=io.StringIO()).open()
    assert run.is_dir() and not old.exists()
    put_claim(storage, f"{HOST}:{dead_pid()}", time.time())  # its worker is gone: nothing writes there any more
    CampaignLoop(c, progress=False, out=io.StringIO()).open()
    assert not run.exists()


def test_the_claimant_beats_while_confirming_and_clears_its_claim_when_it_fails(tmp_path: Path,
                                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from autotune.campaign.confirm import _claim

    monkeypatch.setattr(_claim, "HEARTBEAT_S", 0.05)
    storage = f"sqlite:///{tmp_path / 's.db'}"
    study = optuna.create_study(study_name="fake", storage=storage)
    said: list[str] = []
    claim = _claim.ConfirmationClaim(study, storage, ME, [0, 1, 2])
    assert claim.take(said.append) and not said
    first = trialrecord.read_study(study).confirmation_claim
    assert first is not None and first["worker"] == ME and first["trials"] == 3 and not first["finished"]
    with claim.beating():
        time.sleep(0.5)
        beat = trialrecord.read_study(study).confirmation_claim["beat"]  # type: ignore[index]
    assert beat > first["beat"]  # refreshed while the block ran
    with pytest.raises(KeyboardInterrupt), claim.beating():
        raise KeyboardInterrupt
    assert trialrecord.read_study(study).confirmation_claim is None  # interrupted: free for the next worker
    assert claim.take(said.append)
    put_claim(storage, "elsewhere-7:4242", time.time())  # taken over meanwhile (this worker looked dead)
    assert not claim.record({"rounds": 3}, said.append)
    assert said == ["confirmation: worker elsewhere-7:4242 took the claim over meanwhile; its result lands in the study"]
    assert trialrecord.read_study(study).confirmation is None

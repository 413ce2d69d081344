"""kill -9 a seeded campaign at random moments and resume it each time: no configuration completes twice."""

from __future__ import annotations

import os
import random
import sqlite3
import subprocess
import sys
import uuid
from collections import Counter
from contextlib import closing
from pathlib import Path

import optuna
import pytest

from autotune.campaign import load_campaign
from autotune.campaign.study._study import ran_trials
from autotune.testing._misbehave import kill_9_repeatedly, kill_all, processes_with, write_campaign

APP = """
import os, random, time
time.sleep(random.Random(os.environ["AUTOTUNE_TRIAL"]).uniform(0.05, 0.25))
print('{"autotune_record": 1, "metrics": {"bandwidth_mib_s": %d}}' % (100 + int(os.environ["AUTOTUNE_TRIAL"])))
"""
KILLS = 4
TRIALS = 12


@pytest.mark.slow
@pytest.mark.parametrize("sampler", [{"name": "random", "seed": 1}, {"name": "tpe", "seed": 5}])
def test_kill_9_and_resume_never_repeats_a_configuration(tmp_path: Path, sampler: dict[str, object]) -> None:
    seed = int(os.environ.get("AUTOTUNE_KILL_LOOP_SEED", str(random.randrange(1 << 30))))
    rng = random.Random(seed)
    mark = uuid.uuid4().hex
    path = write_campaign(tmp_path, APP, name="again", sampler=sampler, budget={"trials": TRIALS, "run_timeout": "30s"},
                          app={"env": {"AGAIN_MARK": mark}})
    cmd = [sys.executable, "-m", "autotune.cli", "tune", str(path)]
    c = load_campaign(path)
    try:
        killed = kill_9_repeatedly(cmd, f"AGAIN_MARK={mark}", rng, KILLS, (0.3, 2.0))  # a few trials in
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, f"seed {seed}: {out.stderr}"
        assert "Warning" not in out.stderr, out.stderr
    finally:
        kill_all(processes_with(f"AGAIN_MARK={mark}"))
    study = optuna.load_study(study_name=c.study, storage=c.storage)
    ran = ran_trials(study)
    assert len(ran) == TRIALS, f"seed {seed}"
    done = Counter(tuple(sorted(t.params.items())) for t in ran
                   if t.state == optuna.trial.TrialState.COMPLETE and not t.user_attrs.get("is_default"))
    repeated = {k: n for k, n in done.items() if n > 1}
    assert not repeated, f"seed {seed}, {killed} kills: configurations completed more than once: {repeated}"
    print(f"resume kill loop ({sampler['name']}): seed {seed}, {killed} kills, {len(study.trials)} trials in the study")


def test_a_store_whose_writer_was_killed_mid_transaction_resumes(tmp_path: Path) -> None:
    """A hot journal (kill -9 during a write) is rolled back by the store check, not called a broken store."""
    from autotune.campaign.study._stores import check_sqlite

    db = tmp_path / "optuna.db"
    with closing(sqlite3.connect(db)) as con:
        con.execute("create table t(x blob)")
        con.executemany("insert into t values (?)", [(b"x" * 4000,) for _ in range(200)])
        con.commit()
    killed_writer = (f"import os, signal, sqlite3\ncon = sqlite3.connect({str(db)!r}, isolation_level=None)\n"
                     "con.execute('PRAGMA cache_size=1')\ncon.execute('BEGIN')\n"
                     "con.execute('update t set x = randomblob(4000)')\nos.kill(os.getpid(), signal.SIGKILL)\n")
    subprocess.run([sys.executable, "-c", killed_writer], check=False)
    journal = db.with_name("optuna.db-journal")
    assert journal.is_file() and journal.stat().st_size > 0  # the regression needs a hot journal
    check_sqlite(db, "storage")
    with closing(sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)) as con:
        assert con.execute("select count(*) from t where x = ?", (b"x" * 4000,)).fetchone() == (200,)

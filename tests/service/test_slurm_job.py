"""A production job script with ask/tell under the local Slurm, against PostgreSQL, through an outage."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import optuna
import pytest
import yaml
from optuna.trial import TrialState

from autotune.testing import TcpProxy, ensure_local_slurm, fresh_postgres_database

SERVER = os.environ.get("AUTOTUNE_TEST_POSTGRES_SERVER", "postgresql://postgres@127.0.0.1:5432")
EXAMPLE = Path(__file__).resolve().parents[2] / "experiments" / "campaigns" / "model-theta-ior.yaml"
REPO = Path(__file__).resolve().parents[2]

JOB = """#!/bin/bash
#SBATCH --ntasks=1 --time=10 --output={out}
cd {work}
eval "$({autotune} ask {campaign} --storage {storage} --timeout 60s --explore 0)"  # the test checks best-known hand-out
echo "asked source=$AUTOTUNE_CONFIG_SOURCE trial=$AUTOTUNE_TRIAL"
while [ -e {hold} ]; do sleep 0.2; done      # the application runs (the test may take the store away now)
{autotune} tell {campaign} --storage {storage} --value 1234 --timeout 20s
echo "job done"
"""


@pytest.fixture(scope="module")
def slurm() -> Iterator[str]:
    yield ensure_local_slurm()


def submit(tmp: Path, name: str, storage: str, campaign: Path) -> tuple[str, Path, Path]:
    out, hold = tmp / f"{name}.out", tmp / f"{name}.hold"
    hold.touch()
    autotune = shlex.join([sys.executable, "-m", "autotune.cli"])
    script = tmp / f"{name}.sh"
    script.write_text(JOB.format(out=out, work=tmp, autotune=autotune, campaign=shlex.quote(str(campaign)),
                                 storage=shlex.quote(storage), hold=shlex.quote(str(hold))))
    env = {**os.environ, "PYTHONPATH": str(REPO), "AUTOTUNE_CACHE_DIR": str(tmp / "cache")}
    job = subprocess.run(["sbatch", "--parsable", str(script)], capture_output=True, text=True, check=True,
                         env=env).stdout.strip().split(";")[0]
    return job, out, hold


def wait_for(path: Path, text: str, timeout: float = 240) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and text in path.read_text():
            return path.read_text()
        time.sleep(0.3)
    raise AssertionError(f"{text!r} not in {path}: {path.read_text() if path.exists() else '(no output)'}")


@pytest.mark.slurm
@pytest.mark.slow
def test_job_script_asks_and_tells_and_survives_the_store_going_away(slurm: str, tmp_path: Path) -> None:
    data = yaml.safe_load(EXAMPLE.read_text())
    data.update(workdir=str(tmp_path / "work"), tracking={"enabled": False})
    campaign = tmp_path / "prod.yaml"
    campaign.write_text(yaml.safe_dump(data))
    with fresh_postgres_database(SERVER, f"autotune_job_{uuid.uuid4().hex[:10]}") as url:
        proxy = TcpProxy(("127.0.0.1", 5432)).start()
        via = url.replace("127.0.0.1:5432", f"127.0.0.1:{proxy.port}")
        try:
            job1, out1, hold1 = submit(tmp_path, "job1", via, campaign)
            wait_for(out1, "asked source=default")
            hold1.unlink()
            wait_for(out1, "job done")
            job2, out2, hold2 = submit(tmp_path, "job2", via, campaign)
            wait_for(out2, "asked source=best")
            proxy.stop()  # the database goes away while job 2's application runs
            hold2.unlink()
            text2 = wait_for(out2, "job done")
            assert "spooled" in text2
            job3, out3, hold3 = submit(tmp_path, "job3", via, campaign)  # starts while the store is away
            hold3.unlink()
            text3 = wait_for(out3, "job done")
            assert "asked source=fallback-cache trial=" in text3  # ran the last known best, nothing to tell
            proxy = TcpProxy(("127.0.0.1", 5432), port=proxy.port).start()
            job4, out4, hold4 = submit(tmp_path, "job4", via, campaign)  # its ask delivers job 2's tell
            wait_for(out4, "asked source=")
            hold4.unlink()
            wait_for(out4, "job done")
        finally:
            proxy.stop()
        study = optuna.load_study(study_name=data["name"], storage=url)
        by_job = {t.user_attrs.get("job_id"): t for t in study.trials}
        assert by_job[job1].state == TrialState.COMPLETE and by_job[job1].value == 1234
        assert by_job[job2].state == TrialState.COMPLETE and by_job[job2].value == 1234  # delivered after the outage
        assert job3 not in by_job
        assert by_job[job4].state == TrialState.COMPLETE

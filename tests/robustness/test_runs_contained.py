"""Misbehaving apps (real processes, real kills): nothing a run starts outlives it, and its limits hold."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from autotune.campaign import load_campaign
from autotune.launch import KILL_GRACE_S, proc_stat, run_process
from autotune.testing import kill_all, processes_with, script_campaign, wait_for


@pytest.fixture
def marker() -> Iterator[str]:
    """An environment line only this test's processes carry; whatever still has it at the end is a leak."""
    mark = f"ROBUST_MARK={uuid.uuid4().hex}"
    yield mark
    left = processes_with(mark)
    kill_all(left)
    assert not left, f"processes left behind: {left}"


def _run(tmp_path: Path, marker: str, script: str, timeout: float, **kw: object) -> tuple[object, float]:
    app = tmp_path / "app.sh"
    app.write_text(script)
    key, value = marker.split("=")
    start = time.monotonic()
    res = run_process(["bash", str(app)], {**os.environ, key: value}, tmp_path, timeout, **kw)  # type: ignore[arg-type]
    return res, time.monotonic() - start


STUBBORN = """
trap '' TERM
( trap '' TERM; exec sleep 1000 ) &
setsid bash -c "trap '' TERM; exec sleep 1000" &
echo started
exec sleep 1000
"""


def test_timeout_kills_a_sigterm_ignoring_tree_holding_stdout(tmp_path: Path, marker: str) -> None:
    res, took = _run(tmp_path, marker, STUBBORN, 2.0)
    assert res.timed_out and res.error == "timed out after 2s (killed)"  # type: ignore[attr-defined]
    assert res.stdout == "started\n"  # type: ignore[attr-defined]
    assert took < 2.0 + KILL_GRACE_S + 3.0, took
    assert processes_with(marker) == []


DETACHER = """
python3 - <<'EOF'
import os, sys, time
if os.fork() == 0:          # double fork + setsid: a daemon that keeps our stdout open
    os.setsid()
    if os.fork() == 0:
        time.sleep(1000)
    os._exit(0)
os.wait()
EOF
echo '{"metrics": {"bandwidth_mib_s": 5}}'
"""


def test_detached_children_end_with_a_successful_run(tmp_path: Path, marker: str) -> None:
    res, took = _run(tmp_path, marker, DETACHER, 60.0)
    assert res.ok and '"bandwidth_mib_s": 5' in res.stdout, res.error  # type: ignore[attr-defined]
    assert took < 10, took  # not the daemon's lifetime
    assert processes_with(marker) == []


@pytest.mark.skipif(shutil.which("mpiexec") is None, reason="needs MPICH's mpiexec")
def test_timeout_kills_mpiexec_and_its_ranks(tmp_path: Path, marker: str) -> None:
    script = f"exec mpiexec -n 2 {sys.executable} -c 'import time; time.sleep(1000)'\n"
    res, took = _run(tmp_path, marker, script, 3.0)
    assert res.timed_out, res.error  # type: ignore[attr-defined]
    assert took < 3.0 + KILL_GRACE_S + 5.0, took
    assert processes_with(marker) == []


def test_output_is_capped_keeping_head_and_tail(tmp_path: Path, marker: str) -> None:
    script = f"""{sys.executable} - <<'EOF'
import sys
sys.stdout.write("FIRST LINE\\n")
chunk = ("y" * 1023 + "\\n") * 1024
for _ in range(100):
    sys.stdout.write(chunk)
sys.stdout.write('{{"metrics": {{"bandwidth_mib_s": 7}}}}\\n')
EOF
"""
    log = tmp_path / "run" / "rep0"
    res, _ = _run(tmp_path, marker, script, 120.0, log_prefix=log, cap=1 << 20)
    out = res.stdout  # type: ignore[attr-defined]
    assert res.ok and out.startswith("FIRST LINE") and out.rstrip().endswith('{"metrics": {"bandwidth_mib_s": 7}}')
    printed = len("FIRST LINE\n") + 100 * (1 << 20) + len('{"metrics": {"bandwidth_mib_s": 7}}\n')
    assert f"bytes of output dropped here; the run printed {printed} bytes" in out
    size = sum(p.stat().st_size for p in (tmp_path / "run").iterdir())
    assert size < (1 << 20) + 4096, size


HANGS_WITH_A_DAEMON = """
import os, subprocess, sys, time
if os.path.exists(os.environ["HANG_FLAG"]):
    subprocess.Popen(["setsid", "sleep", "1000"], stdout=subprocess.DEVNULL)
    time.sleep(1000)
print('{"autotune_record": 1, "metrics": {"bandwidth_mib_s": 10}}')
"""


@pytest.mark.slow
def test_killed_campaign_leftovers_are_killed_on_resume(tmp_path: Path, marker: str) -> None:
    """kill -9 of the campaign: the app's main process dies with it (pdeathsig); a detached child that
    survives is killed by the resumed campaign before it goes on."""
    flag = tmp_path / "hang"
    flag.touch()
    key, value = marker.split("=")
    path = script_campaign(tmp_path, HANGS_WITH_A_DAEMON, app={"env": {key: value, "HANG_FLAG": str(flag)}},
                          budget={"trials": 2, "run_timeout": "60s"})
    cmd = [sys.executable, "-m", "autotune.cli", "tune", str(path)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        assert wait_for(lambda: len(processes_with(marker)) >= 2, 60), "the app never started"
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    # the direct child went with the campaign; the setsid'ed sleep is still there
    assert wait_for(lambda: len(processes_with(marker)) == 1, 10), processes_with(marker)
    flag.unlink()
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "resume: killed 1 process(es) left running by an interrupted run" in out.stdout
    assert processes_with(marker) == []
    c = load_campaign(path)
    runs = c.workdir / "runs" / c.study
    assert runs.is_dir() and not list(runs.glob("*/*/process.json"))


def _our_zombies() -> list[int]:
    zombies = []
    for name in os.listdir("/proc"):
        st = proc_stat(int(name)) if name.isdigit() else None
        if st is not None and st.state == "Z" and st.ppid == os.getpid():
            zombies.append(st.pid)
    return zombies


def test_detached_children_that_exit_alone_are_reaped(tmp_path: Path, marker: str) -> None:
    """They re-parent to us (subreaper) and must not stay as zombies of the campaign."""
    script = "setsid sleep 0.5 &\nsetsid sleep 0.5 &\nsleep 3\n"
    before = set(_our_zombies())  # orphans of other tests' killed campaigns re-parent to pytest, a subreaper now
    res, _ = _run(tmp_path, marker, script, 30.0)
    assert res.ok, res.error  # type: ignore[attr-defined]
    zombies = sorted(set(_our_zombies()) - before)
    assert zombies == [], [(proc_stat(z), Path(f"/proc/{z}/cmdline").read_bytes()) for z in zombies]


def test_a_missing_program_is_a_one_line_error(tmp_path: Path) -> None:
    res = run_process([str(tmp_path / "nope")], dict(os.environ), tmp_path, 10.0)
    assert res.error == f"cannot start {str(tmp_path / 'nope')!r}: No such file or directory", res.error


@pytest.mark.slow
def test_sigterm_to_the_campaign_ends_the_whole_tree(tmp_path: Path, marker: str) -> None:
    flag = tmp_path / "hang"
    flag.touch()
    key, value = marker.split("=")
    path = script_campaign(tmp_path, HANGS_WITH_A_DAEMON, app={"env": {key: value, "HANG_FLAG": str(flag)}},
                          budget={"trials": 2, "run_timeout": "60s"})
    proc = subprocess.Popen([sys.executable, "-m", "autotune.cli", "tune", str(path)], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    try:
        assert wait_for(lambda: len(processes_with(marker)) >= 2, 60), "the app never started"
    finally:
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=60)
    assert "interrupted during trial 0" in out
    assert wait_for(lambda: processes_with(marker) == [], 5), processes_with(marker)

"""Helpers for the robustness tests: campaign files around tiny (mis)behaving apps, and finding processes."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import yaml

from autotune.launch import proc_stat

# A well-behaved app: the bandwidth printed as a kernel record; FAKE_BW overrides the value per trial
# ("trial:value,..."), e.g. "1:nan,2:-5,3:Infinity".
GOOD_APP = '''
import json, os, sys, time
trial = os.environ["AUTOTUNE_TRIAL"]
over = dict(kv.split(":", 1) for kv in os.environ.get("FAKE_BW", "").split(",") if kv)
bw = over.get(trial, str(100 + int(trial)))
time.sleep(float(os.environ.get("FAKE_SLEEP", "0.05")))
data = os.environ["AUTOTUNE_DATA_DIR"]
os.makedirs(data, exist_ok=True)
open(os.path.join(data, "blob"), "wb").write(b"x" * 1024)
print('{"autotune_record": 1, "metrics": {"bandwidth_mib_s": %s}}' % bw)
'''


def script_campaign(tmp_path: Path, script: str, name: str = "robust", **over: Any) -> Path:
    """A campaign file running ``script`` (Python source, written next to it) as a plain command."""
    app = tmp_path / f"{name}_app.py"
    app.write_text(script)
    data: dict[str, Any] = {
        "name": name,
        "app": {"command": [sys.executable, str(app)], "mpiexec": False, "ranks": 2,
                "metric": {"extractor": "json"}, "pattern": {"bytes_per_rank": "1MiB", "library": "mpiio"}},
        "system": "local",
        "target": {"path": str(tmp_path / "target")},
        "space": "local-romio",
        "objective": {"metric": "bandwidth_mib_s", "direction": "maximize", "repeats": 1},
        "budget": {"trials": 3, "run_timeout": "20s"},
        "sampler": {"name": "random", "seed": 1},
        "workdir": str(tmp_path / f"work-{name}"),
        "tracking": {"enabled": False},
    }
    for key, value in over.items():
        data[key] = {**data[key], **value} if isinstance(value, dict) and isinstance(data.get(key), dict) else value
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def processes_with(marker: str) -> list[int]:
    """Live processes (not zombies) whose environment holds the line ``marker`` (``KEY=value``)."""
    found = []
    want = marker.encode()
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                env = f.read().split(b"\0")
        except OSError:
            continue
        st = proc_stat(int(name))
        if want in env and st is not None and st.state != "Z":
            found.append(int(name))
    return found


def wait_for(predicate: Any, timeout: float, every: float = 0.05) -> bool:
    """Poll ``predicate()`` until it is true or ``timeout`` seconds pass; returns the last result."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(every)
    return bool(predicate())


def kill_all(pids: list[int]) -> None:
    """Clean-up for a failing test: SIGKILL what it left (never a process it did not find by its marker)."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def kill_9_repeatedly(cmd: list[str], marker: str, rng: random.Random, kills: int,
                      pause: tuple[float, float]) -> int:
    """Start ``cmd`` and ``kill -9`` it (its own process only: what it started stays for the resume to find)
    at a random moment (``pause`` seconds) once a new process whose environment holds ``marker`` runs;
    ``kills`` times, fewer when it finishes first. Returns how many kills."""
    killed = 0
    for _ in range(kills):
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        # a random moment once an app of this campaign runs (start-up alone takes seconds here)
        before = set(processes_with(marker))  # daemons of killed runs, until the resume kills them
        wait_for(lambda p=proc, b=before: p.poll() is not None or bool(set(processes_with(marker)) - b), 60)
        time.sleep(rng.uniform(*pause))
        if proc.poll() is not None:
            break  # it finished before the kill
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        killed += 1
    return killed

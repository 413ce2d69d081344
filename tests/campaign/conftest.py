from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

FAKE_APP = textwrap.dedent('''
    """A stand-in app with a known surface: bandwidth from the AUTOTUNE_PARAM_* variables."""
    import json, math, os, sys, time
    p = lambda k, d: os.environ.get("AUTOTUNE_PARAM_" + k, d)
    trial = int(os.environ["AUTOTUNE_TRIAL"])
    if os.environ.get("FAKE_LOG"):  # one line per run: its run number (trial, confirmation or re-measurement)
        with open(os.environ["FAKE_LOG"], "a") as log:
            log.write(f"{trial}\\n")
    if str(trial) in os.environ.get("FAKE_FAIL_TRIALS", "").split(","):
        print("fake app: failing on purpose", file=sys.stderr); sys.exit(1)
    if str(trial) in os.environ.get("FAKE_HANG_TRIALS", "").split(","):
        time.sleep(600)
    bw = 100.0
    if p("MPIIO_ROMIO_CB_WRITE", "automatic") == "disable":
        bw *= 5
    bw *= 1 + math.log2(int(p("MPIIO_CB_NODES", "1"))) / 4
    bw *= 1 + 0.01 * int(os.environ["AUTOTUNE_REPETITION"])
    time.sleep(float(os.environ.get("FAKE_SLEEP", "0.3")))
    data = os.environ["AUTOTUNE_DATA_DIR"]
    os.makedirs(data, exist_ok=True)
    open(os.path.join(data, "blob"), "wb").write(b"x" * 1024)
    print(json.dumps({"autotune_record": 1, "metrics": {"bandwidth_mib_s": bw, "seconds": 1.0}}))
''')


@pytest.fixture
def fake_app(tmp_path: Path) -> Path:
    path = tmp_path / "fake_app.py"
    path.write_text(FAKE_APP)
    return path


@pytest.fixture
def make_campaign(tmp_path: Path, fake_app: Path) -> Any:
    def make(**over: Any) -> Path:
        data: dict[str, Any] = {
            "name": "fake",
            "app": {"command": [sys.executable, str(fake_app)], "mpiexec": False, "ranks": 4,
                    "metric": {"extractor": "json"}, "pattern": {"bytes_per_rank": "1MiB", "library": "hdf5"}},
            "system": "local",
            "space": "local-romio",
            "objective": {"metric": "bandwidth_mib_s", "direction": "maximize", "repeats": 2,
                          "confirm": 0},  # the confirmation has its own tests (test_confirm.py)
            "budget": {"trials": 4, "run_timeout": "20s"},
            "sampler": {"name": "tpe", "seed": 3},
            "workdir": str(tmp_path / "work"),
            "tracking": {"enabled": False},
        }
        for key, value in over.items():
            if isinstance(value, dict) and isinstance(data.get(key), dict):
                data[key] = {**data[key], **value}
            else:
                data[key] = value
        path = tmp_path / "campaign.yaml"
        path.write_text(yaml.safe_dump(data))
        return path

    return make

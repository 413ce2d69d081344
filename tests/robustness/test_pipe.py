"""`autotune ... | head` ends quietly: no BrokenPipeError traceback, no "Exception ignored" message."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from autotune.testing import model_campaign_data, write_campaign_yaml

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("reader", ["true", "head -n 1"])
def test_output_into_a_closed_pipe_is_quiet(tmp_path: Path, reader: str) -> None:
    path = write_campaign_yaml(tmp_path / "c.yaml", model_campaign_data(tmp_path / "work"))
    # `true` exits before autotune writes anything: every write meets a closed pipe
    script = f"{sys.executable} -m autotune.cli space {path} | {reader}; echo ${{PIPESTATUS[0]}} >&2"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    res = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120, env=env)
    assert res.stderr.strip() == "0", res.stderr

"""An unreachable tracking server: a warning within seconds, and the campaign goes on without it."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from autotune.testing import GOOD_APP, script_campaign
from autotune.testing import closed_port as free_port

pytest.importorskip("mlflow", reason="the tracking extra is not installed")


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A port on 127.0.0.1 that accepts connections and never answers (a hung server)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(64)
    yield srv.getsockname()[1]
    srv.close()


@pytest.fixture
def closed_port() -> int:
    return free_port()


def _tune_timed(path: Path, uri: str) -> tuple[int, float | None, float, str]:
    """Run `autotune tune` against ``uri``: exit code, seconds to the first tracking warning, total, stderr."""
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "autotune.cli", "tune", str(path), "--tracking-uri", uri],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    first: list[float] = []

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            if "tracker" in line and not first:
                first.append(time.monotonic() - start)
            lines.append(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    rc = proc.wait(timeout=300)
    reader.join(10)
    return rc, first[0] if first else None, time.monotonic() - start, "".join(lines)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["silent", "refused"])
def test_unreachable_tracking_server_warns_fast_and_the_campaign_goes_on(
        tmp_path: Path, kind: str, request: pytest.FixtureRequest) -> None:
    port = request.getfixturevalue("silent_server" if kind == "silent" else "closed_port")
    path = script_campaign(tmp_path, GOOD_APP, budget={"trials": 3}, tracking={"enabled": True})
    rc, first, total, err = _tune_timed(path, f"http://127.0.0.1:{port}")
    assert rc == 0, err
    assert first is not None and first < 30, (first, err)  # ~10 s here for the silent server, start-up included
    assert "tracking is off for the rest of this campaign" in err
    assert err.count("warning: tracker") == 1, err  # one warning, not one stall per trial
    assert total < first + 60, (first, total)

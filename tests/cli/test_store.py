"""``autotune store serve`` answers only its owner by default: a Unix socket in a 0700 directory."""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from autotune.cli import _options as cli_options
from autotune.cli import main
from autotune.errors import ConfigError
from autotune.service import DEFAULT_PORT, socket_path
from autotune.testing import script_campaign

APP = 'print(\'{"metrics": {"bandwidth_mib_s": 5}}\')\n'
NOBODY = 65534


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_the_help_names_the_port_the_service_uses() -> None:
    assert cli_options.DEFAULT_PORT == DEFAULT_PORT  # the parser's help cannot import the service (Optuna)


def test_the_default_socket_is_in_a_private_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path / "cache"))
    old = os.umask(0)
    try:
        path, who = socket_path(None, "sqlite:///x.db")
    finally:
        os.umask(old)
    assert _mode(path.parent) == 0o700 and "you only" in who and path.name.endswith(":0")


def test_a_group_directory_shares_with_the_group_only(tmp_path: Path) -> None:
    d = tmp_path / "grp"
    d.mkdir()
    d.chmod(0o750)
    _, who = socket_path(str(d), "sqlite:///x.db")
    assert "group" in who and "0750" in who
    d.chmod(0o755)
    assert "every local user" in socket_path(str(d), "sqlite:///x.db")[1]


@pytest.mark.parametrize("mode", [0o777, 0o773])
def test_a_directory_anyone_can_write_is_refused(tmp_path: Path, mode: int) -> None:
    d = tmp_path / "open"
    d.mkdir()
    d.chmod(mode)
    with pytest.raises(ConfigError, match="writable by everyone"):
        socket_path(str(d), "sqlite:///x.db")


def test_socket_dir_and_tcp_are_not_both(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["store", "serve", "--storage", "sqlite:///x.db", "--socket-dir", str(tmp_path), "--port", "1"]) == 2
    assert "--socket-dir" in capsys.readouterr().err


def _connect_as_nobody(path: str) -> subprocess.CompletedProcess[str]:
    code = f"import socket; socket.socket(socket.AF_UNIX).connect({path!r})"
    return subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
                           "/usr/bin/python3", "-c", code], capture_output=True, text=True, timeout=60)


@pytest.mark.slow
def test_the_owner_asks_through_the_socket_and_another_user_cannot_connect(tmp_path: Path) -> None:
    walkable = Path(tempfile.mkdtemp(prefix="autotune-store-"))  # others may pass through; the cache stays 0700
    walkable.chmod(0o711)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "AUTOTUNE_CACHE_DIR": str(walkable / "cache")}
    db = f"sqlite:///{tmp_path / 's.db'}"
    serve = subprocess.Popen([sys.executable, "-m", "autotune.cli", "store", "serve", "--storage", db], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert serve.stdout is not None
        line = serve.stdout.readline()
        url = re.search(r"--storage (grpc\+unix://\S+);", line)
        assert url is not None and "reachable by you only" in line, line
        sock = Path(url[1][len("grpc+unix://"):])
        deadline = time.monotonic() + 60
        while not (sock.is_socket() and _mode(sock) == 0o600) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _mode(sock) == 0o600 and _mode(sock.parent) == 0o700
        campaign = script_campaign(tmp_path, APP)
        asked = subprocess.run([sys.executable, "-m", "autotune.cli", "ask", str(campaign), "--storage", url[1],
                                "--timeout", "300s"], capture_output=True, text=True, env=env, timeout=300)
        assert asked.returncode == 0 and "AUTOTUNE_CONFIG_SOURCE=default" in asked.stdout, asked.stderr
        if os.geteuid() == 0 and shutil.which("setpriv") and Path("/usr/bin/python3").exists():
            refused = _connect_as_nobody(str(sock))
            assert refused.returncode != 0 and "PermissionError" in refused.stderr, refused.stderr
    finally:
        serve.terminate()
        serve.wait(30)
        shutil.rmtree(walkable, ignore_errors=True)

"""Values autotune did not just compute (a cached configuration, a store's best, an expression in a space)
are checked like a user's input: refused in one line, or set aside with a warning; never an internal error."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from autotune.campaign import Runtime, load_campaign
from autotune.errors import ConfigError
from autotune.service import cache_path, pending, recall, remember, spool, spool_dir
from autotune.space import Expr
from autotune.testing import script_campaign

APP = 'print(\'{"metrics": {"bandwidth_mib_s": 5}}\')\n'
UNREACHABLE = "postgresql://postgres@127.0.0.1:1/x"  # connection refused at once


@pytest.mark.parametrize("text, op", [("1 << 3", "LShift"), ("8 >> 1", "RShift"), ("3 & 1", "BitAnd"),
                                      ("3 | 1", "BitOr"), ("3 ^ 1", "BitXor"), ("~3", "Invert"),
                                      ("1 is 1", "Is"), ("1 is not 2", "IsNot")])
def test_an_unsupported_operator_is_refused_naming_the_expression(text: str, op: str) -> None:
    with pytest.raises(ConfigError) as err:
        Expr(text, "space s.parameters.x.high").evaluate({})
    assert f"{text!r} uses the operator {op}" in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("text", ["1 + 'a'", "[1, 2][9]", "3[0]", "min()"])
def test_an_expression_that_cannot_be_evaluated_is_one_line(text: str) -> None:
    with pytest.raises(ConfigError, match="cannot be evaluated|min"):
        Expr(text).evaluate({})


def test_unary_plus_is_plus() -> None:
    assert Expr("+8").evaluate({}) == 8


def test_a_space_with_a_shift_in_a_bound_is_exit_2(tmp_path: Path) -> None:
    space = tmp_path / "s.yaml"
    space.write_text(yaml.safe_dump({"name": "s", "parameters": {
        "mpiio.cb_nodes": {"type": "pow2", "low": 1, "high": "1 << 3", "default": 1}}}))
    path = script_campaign(tmp_path, APP, space={"use": str(space)})
    out = subprocess.run([sys.executable, "-m", "autotune.cli", "space", str(path)], capture_output=True, text=True,
                         timeout=120, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "'1 << 3' uses the operator LShift" in out.stderr


@pytest.fixture
def rt(tmp_path: Path) -> Runtime:
    path = script_campaign(tmp_path, APP, space={"use": "local-romio", "only": ["mpiio.romio_cb_write", "mpiio.cb_nodes"]})
    return Runtime.build(load_campaign(path))


@pytest.mark.parametrize("config, why", [
    (None, "NoneType is not a configuration"), ("x", "str is not a configuration"), ([], "list is not a configuration"),
    ({}, "does not set"), ({"mpiio.romio_cb_write": "enable", "mpiio.cb_nodes": -1}, "mpiio.cb_nodes=-1"),
    ({"mpiio.romio_cb_write": "enable", "mpiio.cb_nodes": True}, "mpiio.cb_nodes=True"),
    ({"mpiio.romio_cb_write": {"a": 1}, "mpiio.cb_nodes": 1}, "mpiio.romio_cb_write={'a': 1}"),
    ({"mpiio.romio_cb_write": None, "mpiio.cb_nodes": 1}, "mpiio.romio_cb_write=None"),
    ({"mpiio.romio_cb_write": "enable", "mpiio.cb_nodes": 1, "lustre.stripe_count": -1}, "'lustre.stripe_count'"),
])
def test_refusal_names_what_is_wrong(rt: Runtime, config: Any, why: str) -> None:
    said = rt.space.refusal(config)
    assert said is not None and why in said, said


def test_refusal_accepts_the_default(rt: Runtime) -> None:
    assert rt.space.refusal(rt.space.default_config()) is None


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path / "cache"))
    old = os.umask(0)  # the worst umask: whatever autotune makes must still be private
    try:
        yield tmp_path / "cache"
    finally:
        os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_cache_and_the_spool_are_private_under_umask_000(cache: Path) -> None:
    remember("sqlite:///x.db", "s", {"a": 1})
    path = cache_path("sqlite:///x.db", "s")
    assert _mode(path) == 0o600 and _mode(path.parent) == 0o700 and _mode(cache) == 0o700
    told = spool("sqlite:///x.db", "s", {"ref": "s:1:" + "0" * 32, "value": 1.0})
    assert told is not None and _mode(told) == 0o600 and _mode(spool_dir("sqlite:///x.db", "s")) == 0o700


@pytest.mark.parametrize("how, said", [("file mode 0666", "it is writable by others"),
                                       ("directory mode 0777", "its directory is writable by others"),
                                       ("another owner", "it belongs to uid 65534")])
def test_a_cache_another_user_could_write_is_ignored_with_a_warning(cache: Path, how: str, said: str) -> None:
    if how == "another owner" and os.geteuid() != 0:
        pytest.skip("giving a file to another user needs root")
    remember("sqlite:///x.db", "s", {"a": 1})
    path = cache_path("sqlite:///x.db", "s")
    if how == "file mode 0666":
        path.chmod(0o666)
    elif how == "directory mode 0777":
        path.parent.chmod(0o777)
    else:
        os.chown(path, 65534, 65534)
    warnings: list[str] = []
    assert recall("sqlite:///x.db", "s", warnings.append) is None
    assert len(warnings) == 1 and said in warnings[0], warnings


def test_a_spooled_tell_writable_by_others_is_not_delivered(cache: Path) -> None:
    told = spool("sqlite:///x.db", "s", {"ref": "s:1:" + "0" * 32, "value": 1.0})
    assert told is not None
    told.chmod(0o666)
    warnings: list[str] = []
    assert pending("sqlite:///x.db", "s", warnings.append) == [] and "writable by others" in warnings[0]


def test_a_linked_cache_file_is_not_followed(cache: Path, tmp_path: Path) -> None:
    victim = tmp_path / "victim.json"
    victim.write_text("keep\n")
    path = cache_path("sqlite:///x.db", "s")
    path.parent.mkdir(parents=True, mode=0o700)
    path.symlink_to(victim)
    remember("sqlite:///x.db", "s", {"a": 1})  # replaces the link
    assert victim.read_text() == "keep\n" and not path.is_symlink()


@pytest.mark.slow
@pytest.mark.parametrize("config", [None, "x", {"mpiio.romio_cb_write": {"a": 1}, "mpiio.cb_nodes": 1},
                                    {"mpiio.romio_cb_write": "enable", "mpiio.cb_nodes": -1},
                                    {"mpiio.romio_cb_write": "enable", "mpiio.cb_nodes": True}])
def test_ask_with_an_unreachable_store_and_a_bad_cache_runs_the_defaults(tmp_path: Path, config: Any,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    path = script_campaign(tmp_path, APP, space={"use": "local-romio", "only": ["mpiio.romio_cb_write", "mpiio.cb_nodes"]})
    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path / "cache"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    cached = cache_path(UNREACHABLE, "robust")
    cached.parent.mkdir(parents=True, mode=0o700)
    cached.write_text(json.dumps({"study": "robust", "config": config}))
    cached.chmod(0o600)
    out = subprocess.run([sys.executable, "-m", "autotune.cli", "ask", str(path), "--storage", UNREACHABLE,
                          "--timeout", "5s"], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    assert "AUTOTUNE_CONFIG_SOURCE=fallback-default" in out.stdout and "internal error" not in out.stderr
    assert "warning: the cached configuration" in out.stderr and "-1" not in out.stdout

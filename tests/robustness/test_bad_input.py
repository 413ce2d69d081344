"""Bad input is one line on stderr and exit 2, naming the value and what was expected (the bad-input probe)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from autotune.testing import assert_clean, model_campaign_data, run_cli, write_campaign_yaml


def _set(data: dict[str, Any], dotted: str, value: Any) -> dict[str, Any]:
    keys = dotted.split(".")
    cur = data
    for k in keys[:-1]:
        cur = cur.setdefault(k, {}) if isinstance(cur.get(k), dict) or k not in cur else cur[k]
    cur[keys[-1]] = value
    return data


CASES = [  # (key, value, a fragment the one-line error must contain)
    ("app.args", [1, 2], "app.args: expected a mapping"),
    ("app.args", "size=1", "app.args: expected a mapping"),
    ("app.env", ["A=1"], "app.env: expected a mapping"),
    ("app.env", "A=1", "app.env: expected a mapping"),
    ("app.env", {"A B": "1"}, "not a valid environment variable name"),
    ("app.env", {"A": {"x": 1}}, "app.env.A"),
    ("space.parameters", [1], "space.parameters: expected a mapping"),
    ("space.parameters", "lustre.stripe_count", "space.parameters: expected a mapping"),
    ("space.fixed", ["lustre.stripe_count"], "space.fixed: expected a mapping"),
    ("space.only", [{"a": 1}], "space.only"),
    ("sampler.options", [1], "sampler.options: expected a mapping"),
    ("sampler.options", "n_startup_trials=3", "sampler.options: expected a mapping"),
    ("sampler.seed", -1, "sampler.seed: -1 is not an integer in 0..4294967295"),
    ("sampler.seed", 2**32, "sampler.seed: 4294967296"),
    ("sampler.seed", "one", "sampler.seed"),
    ("sampler.startup_trials", -1, "sampler.startup_trials: -1"),
    ("app.metric", {"extractor": "regex", "pattern": "bw=(\\d+)", "scale": "big"}, "app.metric.scale: 'big'"),
    ("tracking.uri", "ftp://host/x", "unsupported scheme 'ftp'"),
    ("tracking.uri", "sqlite:////no/such/dir/mlflow.db", "directory '/no/such/dir' does not exist"),
    ("tracking.enabled", "maybe", "tracking.enabled: 'maybe' is not true or false"),
    ("tracking.experiment", "a\nb", "control character"),
    ("name", None, "name: None is not a name"),
    ("space.fixed", {"lustre.stripe_count": -2}, "lustre.stripe_count: -2 is below 1"),  # 0 and -1 are lfs(1) aliases
    ("space.fixed", {"lustre.stripe_count": -4}, "lustre.stripe_count: -4 is below 1"),
    ("space.parameters", {"lustre.stripe_count": {"type": "int", "low": 0, "high": 8}}, "lustre.stripe_count.low: 0"),
    ("workdir", "/proc/self/autotune", "under /proc"),
    ("workdir", "/etc/hostname", "exists and is not a directory"),
    ("workdir", "/etc/hostname/sub", "is not a directory"),
    ("app.hint_files", ["a\nb"], "control character"),
]


@pytest.mark.parametrize(("key", "value", "fragment"), CASES, ids=[f"{k}={v!r}"[:60] for k, v, _ in CASES])
@pytest.mark.parametrize("command", ["space", "tune"])
def test_bad_value_is_one_line(tmp_path: Path, key: str, value: Any, fragment: str, command: str) -> None:
    data = _set(model_campaign_data(tmp_path / "work"), key, value)
    path = write_campaign_yaml(tmp_path / "c.yaml", data)
    o = run_cli(command, str(path))
    assert_clean(o, expect=fragment)
    assert not (tmp_path / "work" / "optuna.db").exists()  # refused before anything was written


RAW = {  # whole files that are not a campaign
    "binary": b"\x00\x01\xff\xfe" * 10,
    "latin-1": "name: caf\xe9\n".encode("latin-1"),
    "utf-16": "name: x\n".encode("utf-16"),
    "deeply nested": b"a: " + b"[" * 5000 + b"]" * 5000,
    "deep mapping": b"a:\n" + b"".join(b"  " * i + b"k:\n" for i in range(1, 200)),
    "5000-digit integer": b"name: x\nbudget: {trials: " + b"9" * 5000 + b"}\n",
    "duplicate key": b"name: a\nname: b\napp: {command: [x]}\nspace: lustre-cray\n",
    "a list": b"- 1\n- 2\n",
    "empty": b"",
    "tab indent": b"name: x\n\tapp: 1\n",
}


@pytest.mark.parametrize("raw", list(RAW.values()), ids=list(RAW))
@pytest.mark.parametrize("command", ["space", "status", "export", "tune"])
def test_unreadable_file_is_one_line(tmp_path: Path, raw: bytes, command: str) -> None:
    path = tmp_path / "c.yaml"
    path.write_bytes(raw)
    o = run_cli(command, str(path), *(["--workdir", str(tmp_path / "w")] if command != "space" else []))
    assert_clean(o)
    assert o.rc == 2 and "c.yaml" in o.err


def test_duplicate_key_names_the_key_and_line(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("name: a\nsampler: {seed: 1, seed: 2}\n")
    o = run_cli("space", str(path))
    assert_clean(o, expect="line 2: duplicate key 'seed'")


def test_system_profile_binary_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "site.yaml").write_bytes(b"\xff\xfe\x00garbage")
    data = model_campaign_data(tmp_path / "w", system=str(tmp_path / "site.yaml"))
    o = run_cli("space", str(write_campaign_yaml(tmp_path / "c.yaml", data)))
    assert_clean(o, expect="system profile")


def test_space_file_duplicate_key_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "sp.yaml").write_text("parameters:\n  lustre.stripe_count: {type: int, low: 1, high: 8}\n"
                                      "parameters: {}\n")
    data = model_campaign_data(tmp_path / "w", space={"use": str(tmp_path / "sp.yaml")})
    o = run_cli("space", str(write_campaign_yaml(tmp_path / "c.yaml", data)))
    assert_clean(o, expect="duplicate key 'parameters'")


@pytest.mark.parametrize(("flag", "value", "fragment"), [
    ("--budget", "", "--budget: '' is not a duration"),
    ("--budget", "soon", "--budget"),
    ("--trials", "0", "--trials: 0"),
    ("--repeats", "-1", "--repeats"),
    ("--tracking-uri", "gopher://x", "unsupported scheme"),
    ("--workdir", "/proc/1", "under /proc"),
])
def test_bad_flag_is_one_line(tmp_path: Path, flag: str, value: str, fragment: str) -> None:
    path = write_campaign_yaml(tmp_path / "c.yaml", model_campaign_data(tmp_path / "w"))
    o = run_cli("tune", str(path), flag, value)
    assert_clean(o, expect=fragment)

"""Resource bombs end within a stated bound as one line (exit 2): YAML aliases, expressions, repeat and trial
counts, integers beyond 64 bits (docs/guide/guarantees.md states the limits)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from autotune._paths import find_named
from autotune._yaml import MAX_VALUES, parse_yaml
from autotune.errors import ConfigError
from autotune.space import Expr
from autotune.testing import assert_clean, model_campaign_data, run_cli, write_campaign_yaml

BOUND_S = 10.0  # every case here is refused in well under a second on an idle machine

# nine levels of nine aliases: 9**9 (387 million) leaves from ten lines
ALIAS_BOMB = "".join([f"x{0}: &x0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n",
                      *(f"x{i}: &x{i} [{', '.join([f'*x{i - 1}'] * 9)}]\n" for i in range(1, 9))])
POSITIONS = ["name", "description", "system", "target", "app.command", "app.args", "app.env", "app.ranks",
             "app.metric", "space.only", "space.fixed", "objective.repeats", "budget", "sampler.options",
             "tracking", "workdir", "baseline", "storage"]


def _bomb_campaign(tmp_path: Path, dotted: str) -> Path:
    """The probe campaign with the bomb's last alias as the value of ``dotted``."""
    data = model_campaign_data(tmp_path / "w")
    parts = dotted.split(".")
    if len(parts) == 1:
        data[parts[0]] = "@BOMB@"
    else:
        cur: Any = data
        for k in parts[:-1]:
            cur = cur.setdefault(k, {})
        cur[parts[-1]] = "@BOMB@"
    text = yaml.safe_dump(data, sort_keys=False).replace("'@BOMB@'", "*x8")
    path = tmp_path / "c.yaml"
    path.write_text(ALIAS_BOMB + text)
    return path


def _timed(*argv: str) -> tuple[float, Any]:
    start = time.monotonic()
    o = run_cli(*argv)
    return time.monotonic() - start, o


@pytest.mark.parametrize("dotted", POSITIONS)
def test_alias_bomb_in_any_position_is_refused_quickly(tmp_path: Path, dotted: str) -> None:
    path = _bomb_campaign(tmp_path, dotted)
    for command in ("space", "tune"):
        took, o = _timed(command, str(path))
        assert_clean(o, expect="aliases")
        assert took < BOUND_S, (command, took)
    assert not (tmp_path / "w").exists()


def test_alias_limits() -> None:
    ok = "a: &a [1, 2, 3]\nb: [*a, *a, *a]\n"
    assert parse_yaml(ok, "f") == {"a": [1, 2, 3], "b": [[1, 2, 3]] * 3}
    wide = "a: &a [" + ", ".join(["1"] * 1000) + "]\nb: [" + ", ".join(["*a"] * (MAX_VALUES // 1000 + 1)) + "]\n"
    with pytest.raises(ConfigError, match="aliases"):
        parse_yaml(wide, "f")
    with pytest.raises(ConfigError, match="aliases"):
        parse_yaml("a: &a [*a, *a]\n", "f")  # a recursive alias expands without end


@pytest.mark.parametrize("text", ["9**9**9", "2**64", "10**19", "2**62*4", "int(1e300)", "1e308*10", "(9**9)**9",
                                  "100000000000000000000"])
def test_expression_bombs_are_refused_quickly(text: str) -> None:
    start = time.monotonic()
    with pytest.raises(ConfigError, match="2\\*\\*63"):
        Expr(text).evaluate({})
    assert time.monotonic() - start < 1.0


@pytest.mark.parametrize(("key", "value", "fragment"), [
    ("space.parameters", {"lustre.stripe_count": {"type": "int", "low": 1, "high": "9**9**9"}}, "2**63"),
    ("space.parameters", {"lustre.stripe_count": {"type": "int", "low": 1, "high": "2**64"}}, "2**63"),
    ("space.parameters", {"lustre.stripe_count": {"type": "int", "low": 1, "high": 100000000000000000000}}, "2**63"),
    ("space.fixed", {"lustre.stripe_size": 2**64}, "2**63"),
    ("objective.repeats", 1_000_000_000, "objective.repeats: 1000000000 repetitions"),
    ("budget.trials", 10**15, "budget.trials"),
    ("app.ranks", 2**70, "2**63"),
])
def test_huge_values_in_a_campaign_are_one_line(tmp_path: Path, key: str, value: Any, fragment: str) -> None:
    data = model_campaign_data(tmp_path / "w")
    cur: Any = data
    head, _, last = key.rpartition(".")
    for k in head.split(".") if head else []:
        cur = cur.setdefault(k, {})
    cur[last] = value
    path = write_campaign_yaml(tmp_path / "c.yaml", data)
    for command in ("space", "tune"):
        took, o = _timed(command, str(path), *(["--dry-run"] if command == "tune" else []))
        assert_clean(o, expect=fragment)
        assert took < BOUND_S
    assert not (tmp_path / "w").exists()


@pytest.mark.parametrize(("flag", "value"), [("--repeats", "1000000000"), ("--trials", "100000000000000000000")])
def test_huge_counts_on_the_command_line_are_one_line(tmp_path: Path, flag: str, value: str) -> None:
    path = write_campaign_yaml(tmp_path / "c.yaml", model_campaign_data(tmp_path / "w"))
    took, o = _timed("tune", str(path), "--dry-run", flag, value)
    assert_clean(o, expect=flag)
    assert took < BOUND_S and not (tmp_path / "w").exists()


def test_profile_with_a_huge_ost_count_is_one_line(tmp_path: Path) -> None:
    profile = yaml.safe_load(Path(str(find_named("search_spaces/systems", "theta"))).read_text())
    profile["filesystems"]["projects"]["osts"] = 10**21
    (tmp_path / "site.yaml").write_text(yaml.safe_dump(profile))
    path = write_campaign_yaml(tmp_path / "c.yaml", model_campaign_data(tmp_path / "w", system=str(tmp_path / "site.yaml")))
    for command in ("space", "tune"):
        assert_clean(run_cli(command, str(path)), expect="2**63")

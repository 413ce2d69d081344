"""Everything printed for a shell, comments included, runs nothing but what it shows when pasted into bash;
a path or value with a control character is refused where it enters (command line, campaign, profile)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml

from autotune._paths import find_named
from autotune._shell import comment, quote
from autotune.testing import assert_clean, model_campaign_data, run_cli, write_campaign_yaml

BREAKOUT = ["runs\ntouch PWNED\n#", "runs\rtouch PWNED", "a\x1b]0;x\x07b", "x\u2028touch PWNED", "x\x85y"]
HOSTILE = ["runs $(touch PWNED)", "runs`touch PWNED`", "runs';touch PWNED;'", "runs; touch PWNED #"]


def paste(text: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``text`` pasted into bash, with ``model`` (the model launcher's description) a no-op command."""
    return subprocess.run(["bash", "-c", "model() { :; }\n" + text], cwd=cwd, capture_output=True, text=True,
                          timeout=30, env={**os.environ, "PATH": os.environ.get("PATH", "")})


@pytest.mark.parametrize("value", BREAKOUT + HOSTILE)
def test_comment_and_quote_are_inert_in_bash(tmp_path: Path, value: str) -> None:
    text = "\n".join([comment(f"written to {value}"), f"printf '%s' {quote(value)} > word"])
    res = paste(text, tmp_path)
    assert res.returncode == 0, res.stderr
    assert not (tmp_path / "PWNED").exists()
    assert (tmp_path / "word").read_bytes().decode() == value
    assert len(comment(value).splitlines()) == 1


@pytest.mark.parametrize("value", BREAKOUT)
def test_workdir_with_control_character_is_refused(tmp_path: Path, value: str) -> None:
    path = write_campaign_yaml(tmp_path / "c.yaml", model_campaign_data(tmp_path / "w"))
    o = run_cli("tune", str(path), "--dry-run", "--no-tracking", "--workdir", str(tmp_path / value))
    assert_clean(o, expect="control character")
    bad = write_campaign_yaml(tmp_path / "bad.yaml", model_campaign_data(tmp_path / value))
    o = run_cli("tune", str(bad), "--dry-run")
    assert_clean(o, expect="workdir")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.yaml", "c.yaml"]  # nothing created


@pytest.mark.parametrize("value", BREAKOUT[:2])
def test_profile_path_with_control_character_is_refused(tmp_path: Path, value: str) -> None:
    profile = yaml.safe_load(Path(str(find_named("search_spaces/systems", "theta"))).read_text())
    profile["filesystems"]["projects"]["path"] = f"/lus/{value}"
    (tmp_path / "site.yaml").write_text(yaml.safe_dump(profile))
    path = write_campaign_yaml(tmp_path / "c.yaml", model_campaign_data(tmp_path / "w", system=str(tmp_path / "site.yaml")))
    o = run_cli("tune", str(path), "--dry-run")
    assert_clean(o, expect="path")
    assert "control character" in o.err and not (tmp_path / "w").exists()


@pytest.mark.parametrize("value", HOSTILE)
def test_pasted_dry_run_runs_nothing_else(tmp_path: Path, value: str) -> None:
    work = tmp_path / value
    path = write_campaign_yaml(tmp_path / "c.yaml", model_campaign_data(work))
    o = run_cli("tune", str(path), "--dry-run", "--no-tracking")
    assert_clean(o)
    assert o.rc == 0
    block = o.out[o.out.index("# ---- trial 0"):]
    res = paste(block, tmp_path)
    assert res.returncode == 0, res.stderr
    assert not (tmp_path / "PWNED").exists() and not (Path.cwd() / "PWNED").exists()
    assert str(work / "dry-run" / "trial-0000.txt") in block  # the path is shown as it is


def test_empty_workdir_is_refused(tmp_path: Path) -> None:
    path = write_campaign_yaml(tmp_path / "c.yaml", model_campaign_data(tmp_path / "w"))
    assert_clean(run_cli("tune", str(path), "--dry-run", "--workdir", ""), expect="--workdir: an empty path")
    bad = write_campaign_yaml(tmp_path / "bad.yaml", {**model_campaign_data(tmp_path / "w"), "workdir": ""})
    assert_clean(run_cli("tune", str(bad), "--dry-run"), expect="workdir: an empty path")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.yaml", "c.yaml"]

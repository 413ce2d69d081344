"""Nothing a user did not ask for runs: hostile values cannot break out of a hints file, an environment
variable or a snippet printed for pasting. Snippets are really pasted into bash here."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from autotune.errors import ConfigError
from autotune.hints import BurstBuffer, Settings, Stripe, render, romio_hints_file
from autotune.testing import assert_clean, run_cli, write_campaign_yaml

# Values without control characters pass the load-time checks: the renderers must make them inert.
HOSTILE = ["$(touch PWNED)", "`touch PWNED`", "';touch PWNED;'", '";touch PWNED;"', "x|touch PWNED",
           "a&&touch PWNED", "${IFS}touch${IFS}PWNED", "\\'$(touch PWNED)\\'", "EOF", "*:1 > PWNED"]
# Values with control characters are refused wherever they come from.
BREAKOUT = ["enable\ntouch PWNED", "x\rtouch PWNED", "a\x1b[2Jb", "x\x00y", "x\u2028touch PWNED"]


def paste(snippet: str, cwd: Path, prelude: str = "") -> subprocess.CompletedProcess[str]:
    """Paste ``snippet`` into bash (``lfs`` recorded by a function, as on a machine without Lustre)."""
    assert subprocess.run(["bash", "-n", "-c", snippet], capture_output=True).returncode == 0, snippet
    script = "lfs() { printf '%s\\n' \"$@\" > lfs-args; }\n" + prelude + snippet + "\nprintf '%s' \"$ROMIO_HINTS\" > env-romio\n"
    return subprocess.run(["bash", "-c", script], cwd=cwd, capture_output=True, text=True, timeout=30,
                          env={**os.environ, "OUTPUT_DIR": str(cwd / "out dir")})


@pytest.mark.parametrize("value", HOSTILE)
def test_romio_env_snippet_is_inert(tmp_path: Path, value: str) -> None:
    s = Settings(info={"cb_config_list": value, "romio_cb_write": "disable"})
    res = paste(render("env", s, mpi_flavour="mpich"), tmp_path)
    assert res.returncode == 0, res.stderr
    assert not (tmp_path / "PWNED").exists()
    hints = (tmp_path / "romio-hints.txt").read_text()
    assert hints == f"cb_config_list {value}\nromio_cb_write disable\n"  # literal, line for line
    assert (tmp_path / "env-romio").read_text() == str(tmp_path / "romio-hints.txt")


@pytest.mark.parametrize("value", HOSTILE)
def test_lfs_path_and_mpich_snippets_are_inert(tmp_path: Path, value: str) -> None:
    s = Settings(info={"striping_factor": "4"}, stripe=Stripe(4, 1 << 20))
    res = paste(render("lfs", s, path=value), tmp_path)
    assert res.returncode == 0 and not (tmp_path / "PWNED").exists(), res.stderr
    assert (tmp_path / "lfs-args").read_text().splitlines() == ["setstripe", "-c", "4", "-S", "1m", value]
    # $OUTPUT_DIR (the default) stays a variable, quoted: a space in it does not split the word
    res = paste(render("lfs", s), tmp_path)
    assert (tmp_path / "lfs-args").read_text().splitlines()[-1] == str(tmp_path / "out dir")
    # Cray's MPICH_MPIIO_HINTS: a hostile value is refused or quoted, never run
    try:
        snippet = render("env", Settings(info={"striping_factor": "4", "x": value}), mpi_flavour="cray-mpich",
                         patterns=[value.replace(":", "").replace(",", "").replace(" ", "")])
    except ConfigError:
        return
    res = paste(snippet + "\nprintf '%s' \"$MPICH_MPIIO_HINTS\" > mpich", tmp_path)
    assert not (tmp_path / "PWNED").exists()
    assert (tmp_path / "mpich").read_text().endswith(f"x={value}")


@pytest.mark.parametrize("value", BREAKOUT)
def test_control_characters_are_refused_by_every_renderer(value: str) -> None:
    s = Settings(info={"cb_config_list": value})
    for fmt in ("env", "romio", "mpich"):
        with pytest.raises(ConfigError, match="control character|cannot be written"):
            render(fmt, s, mpi_flavour="mpich" if fmt != "mpich" else "cray-mpich")
    with pytest.raises(ConfigError):
        romio_hints_file({"cb_nodes": value})
    with pytest.raises(ConfigError):
        render("lfs", Settings(info={}, stripe=Stripe(2, 1 << 20)), path=f"/scratch/{value}")
    with pytest.raises(ConfigError):
        render("dw", Settings(info={}, bb=BurstBuffer(2, value, 1 << 30, "1GiB")))


@pytest.mark.parametrize("value", HOSTILE + BREAKOUT)
def test_h5py_and_json_snippets_hold_values_as_literals(value: str) -> None:
    s = Settings(info={"cb_config_list": value}, hdf5_alignment=4096)
    tree = ast.parse(render("h5py", s))
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "Set"]
    assert [tuple(ast.literal_eval(a) for a in c.args) for c in calls] == [("cb_config_list", value)]
    assert json.loads(render("json", s))["mpi_info"] == {"cb_config_list": value}


def test_dw_lines_stay_comments(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="space"):
        render("dw", Settings(info={}, bb=BurstBuffer(2, "wlm_pool capacity=1TiB", 1 << 30, "1GiB")))
    text = render("dw", Settings(info={}, bb=BurstBuffer(2, "$(touch${IFS}PWNED)", 1 << 30, "1GiB")))
    assert all(ln.startswith("#DW ") for ln in text.splitlines())
    res = paste(text, tmp_path)
    assert res.returncode == 0 and not (tmp_path / "PWNED").exists()


FAKE_APP = """
import json, os
# the one hint the campaign fixes, as the ROMIO hints file the launcher wrote holds it; collective buffering
# on wins, so the fixed cb_config_list acts in the recommendation (it is inert, and not exported, without it)
hints = open(os.environ["ROMIO_HINTS"]).read().splitlines() if os.environ.get("ROMIO_HINTS") else []
open(os.path.join(os.environ["AUTOTUNE_RUN_DIR"], "hints-seen.json"), "w").write(json.dumps(hints))
bw = 200.0 if os.environ.get("AUTOTUNE_PARAM_MPIIO_ROMIO_CB_WRITE") == "enable" else 100.0
print(json.dumps({"autotune_record": 1, "metrics": {"bandwidth_mib_s": bw}}))
"""


def _campaign(tmp_path: Path, value: Any) -> Path:
    app = tmp_path / "app.py"
    app.write_text(FAKE_APP)
    return write_campaign_yaml(tmp_path / "c.yaml", {
        "name": "inject", "system": "local", "target": {"filesystem": "disk"},
        "app": {"command": [sys.executable, str(app)], "mpiexec": False, "ranks": 2, "metric": {"extractor": "json"},
                "pattern": {"bytes_per_rank": "1MiB", "library": "mpiio"}},
        "space": {"use": "local-romio", "only": ["mpiio.romio_cb_write"],
                  "fixed": {"mpiio.cb_config_list": value}},
        "objective": {"metric": "bandwidth_mib_s", "direction": "maximize", "repeats": 1},
        "budget": {"trials": 4, "run_timeout": "30s"}, "sampler": {"name": "grid", "seed": 1},
        "tracking": {"enabled": False}, "workdir": str(tmp_path / "work"),
    })


@pytest.mark.slow
def test_campaign_with_hostile_value_prints_only_inert_snippets(tmp_path: Path) -> None:
    value = "';touch PWNED;'$(touch PWNED)"
    path = _campaign(tmp_path, value)
    tuned = run_cli("tune", str(path))
    assert_clean(tuned)
    assert tuned.rc == 0, tuned.err
    runs = tmp_path / "work" / "runs" / "inject"  # this study's run records
    seen = [json.loads(p.read_text()) for p in runs.glob("trial-*/rep-*/hints-seen.json")]
    assert seen and all(f"cb_config_list {value}" in h for h in seen)  # one line, literal, in every run
    block = tuned.out.split("hints to paste into your job script:\n", 1)[1].split("\nstorage:", 1)[0]
    pasted = "\n".join(ln[2:] for ln in block.splitlines())
    for snippet in (pasted, run_cli("export", str(path), "--format", "env").out,
                    run_cli("export", str(path), "--format", "lfs", "--path", value).out):
        res = paste(snippet, tmp_path)
        assert res.returncode == 0, (snippet, res.stderr)
        assert not (tmp_path / "PWNED").exists() and not (Path.cwd() / "PWNED").exists()
    assert f"cb_config_list {value}\n" in (tmp_path / "romio-hints.txt").read_text()
    romio = run_cli("export", str(path), "--format", "romio").out.strip().splitlines()
    assert romio == [f"cb_config_list {value}", "romio_cb_write enable"]


@pytest.mark.parametrize("value", BREAKOUT[:3])
def test_campaign_with_control_character_is_refused_at_load(tmp_path: Path, value: str) -> None:
    o = run_cli("tune", str(_campaign(tmp_path, value)))
    assert_clean(o, expect="space.fixed.mpiio.cb_config_list")
    assert "control character" in o.err and not (tmp_path / "work").exists()


def test_export_files_flag_with_newline_is_refused(tmp_path: Path) -> None:
    o = run_cli("export", str(_campaign(tmp_path, "*:1")), "--files", "a\nb")
    assert_clean(o)
    assert o.rc == 2

"""Every export dialect's text, for every tier, executed as a job script runs it: under ``bash -euo pipefail``
with only the variables a job has (the tier's own, e.g. ``$DW_JOB_STRIPED``; ``$OUTPUT_DIR`` only when the
user set it), ``lfs`` a stub on PATH that records its arguments, and a child program that records the
environment it receives and the ROMIO hints file it is pointed at."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import types
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import pytest

from autotune.hints import FORMATS, Settings, flavour_problem, mpich_mpiio_hints, render, resolve, romio_hints_file
from autotune.pattern import IOPattern
from autotune.systems import load_system

PAT = IOPattern(ranks=64, nodes=4, bytes_per_rank=64 << 20)
FPP = PAT.with_(file_mode="fpp", io_mode="independent")
SHELL = ("env", "job", "lfs", "mpich", "ompi", "dw")  # pasted into a job script; romio, h5py, json are files/code


@dataclass
class Tier:
    system: str
    fs: str
    config: dict[str, Any]
    pattern: IOPattern = PAT
    patterns: tuple[str, ...] = ("*",)
    job_vars: dict[str, str] = field(default_factory=dict)  # set by the workload manager (a #DW line's mount)
    opened: tuple[str, ...] = ()  # file names the app opens that the MPICH_MPIIO_HINTS patterns must match


TIERS = {
    "lustre": Tier("shaheen2", "scratch", {"lustre.stripe_count": 8, "lustre.stripe_size": 4 << 20, "mpiio.cb_nodes": 8,
                                           "cray.cb_nodes_multiplier": 2}, patterns=("wrfout*",),
                   opened=("wrfout_d01", "/scratch/run/wrfout_d01")),
    "lustre-openmpi": Tier("dell-lustre-ee", "lustre", {"lustre.stripe_count": 4, "lustre.stripe_size": 1 << 20,
                                                        "ompi.io": "ompio", "ompi.fcoll": "individual"}),
    "datawarp": Tier("shaheen2", "bb", {"bb.nodes": 4, "mpiio.cb_nodes": 4},
                     patterns=("$DW_JOB_STRIPED/wrfout*", "rst*"), job_vars={"DW_JOB_STRIPED": "/dw/job1"},
                     opened=("/dw/job1/wrfout_d01", "/dw/job1/out/rst_0001")),
    "rabbit": Tier("rabbit-nnf", "rabbit", {"rabbit.type": "xfs", "mpiio.cb_nodes": 4}, pattern=FPP,
                   job_vars={"DW_JOB_autotune": "/nnf/job1"}),
    "nvme": Tier("theta", "ssd", {"mpiio.romio_cb_write": "disable"}, pattern=FPP),
    "pcc": Tier("rabbit-nnf", "pcc", {}, pattern=FPP),
    "posix": Tier("local", "disk", {"mpiio.cb_nodes": 2, "mpiio.romio_cb_write": "enable"}),
}


def settings_of(tier: Tier) -> tuple[Settings, str]:
    system = load_system(tier.system)
    return resolve(tier.config, system, system.filesystem(tier.fs), tier.pattern), system.mpi_flavour


def run_job(tmp: Path, snippet: str, job_vars: dict[str, str], output_dir: bool) -> subprocess.CompletedProcess[str]:
    """``snippet`` then the child program, as a job script under ``bash -euo pipefail`` (a clean environment)."""
    bin_dir, seen = tmp / "bin", tmp / "seen"
    bin_dir.mkdir(exist_ok=True)
    seen.mkdir(exist_ok=True)
    (bin_dir / "lfs").write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" >> {seen}/lfs\n')
    (bin_dir / "child").write_text(f'#!/bin/sh\nenv > {seen}/env\n'
                                   f'if [ -n "${{ROMIO_HINTS:-}}" ]; then cat "$ROMIO_HINTS" > {seen}/romio; fi\n')
    for stub in ("lfs", "child"):
        (bin_dir / stub).chmod(0o755)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp), **job_vars}
    if output_dir:
        env["OUTPUT_DIR"] = str(tmp / "out dir")
    return subprocess.run(["bash", "-euo", "pipefail", "-c", snippet + "\nchild\n"], cwd=tmp, env=env,
                          capture_output=True, text=True, timeout=30)


def received(tmp: Path) -> tuple[dict[str, str], list[str], str | None]:
    """What the child program got (its environment), lfs's arguments, and the ROMIO hints file it could read."""
    seen = tmp / "seen"
    env = dict(line.split("=", 1) for line in (seen / "env").read_text().splitlines() if "=" in line)
    lfs = (seen / "lfs").read_text().splitlines() if (seen / "lfs").exists() else []
    romio = (seen / "romio").read_text() if (seen / "romio").exists() else None
    return env, lfs, romio


def expected_patterns(tier: Tier) -> list[str]:
    out = []
    for p in tier.patterns:
        value = p.replace("$DW_JOB_STRIPED", tier.job_vars.get("DW_JOB_STRIPED", ""))
        out += [value] if p.startswith(("/", "$", "*")) else [value, f"*/{value}"]
    return out


def directory_args(s: Settings, where: str) -> list[str]:
    """What ``lfs`` must receive for the output directory ``where``."""
    if s.stripe is not None:
        size = {1 << 20: "1m", 4 << 20: "4m"}[s.stripe.size]
        return ["setstripe", "-c", str(s.stripe.count), "-S", size, where]
    if s.near is not None and s.near.kind == "pcc":
        return ["project", "-p", str(s.near.pcc_project), "-s", where]
    return []


def check_shell(tmp: Path, fmt: str, tier: Tier, s: Settings, flavour: str, output_dir: bool) -> None:
    snippet = render(fmt, s, mpi_flavour=flavour, patterns=tier.patterns)
    res = run_job(tmp, snippet, tier.job_vars, output_dir)
    assert res.returncode == 0, (fmt, snippet, res.stderr)
    env, lfs, romio = received(tmp)
    hints_here = fmt in ("env", "job") or (fmt == "mpich" and flavour == "cray-mpich") or fmt == "ompi"
    if hints_here and s.info and flavour == "cray-mpich":
        assert env["MPICH_MPIIO_HINTS"] == mpich_mpiio_hints(s.info, expected_patterns(tier)), snippet
        for name in tier.opened:  # every file the app opens gets the hints
            assert any(fnmatchcase(name, p) for p in expected_patterns(tier)), name
    elif hints_here and s.info and flavour == "mpich":
        assert romio == romio_hints_file(s.info) and env["ROMIO_HINTS"].endswith("romio-hints.txt")
    if hints_here and flavour == "openmpi":
        assert {k[len("OMPI_MCA_"):]: v for k, v in env.items() if k.startswith("OMPI_MCA_")} == s.mca
    if not hints_here:
        assert "MPICH_MPIIO_HINTS" not in env and "ROMIO_HINTS" not in env
    wanted = directory_args(s, str(tmp / "out dir")) if fmt in ("env", "job", "lfs") else []
    if output_dir:
        assert lfs == wanted, (fmt, snippet)
        assert not wanted or (tmp / "out dir").is_dir()  # a directory: lfs on a missing name makes a file
    else:
        assert lfs == []
        if wanted:
            assert "$OUTPUT_DIR is not set" in res.stderr, res.stderr


def check_code(fmt: str, s: Settings, flavour: str) -> None:
    """romio: a file of the hints; json: everything; h5py: the code runs and hands h5py the hints."""
    text = render(fmt, s, mpi_flavour=flavour)
    if fmt == "romio" and flavour == "openmpi" and s.config.get("ompi.io", "ompio") == "ompio":
        assert text.startswith("# OMPIO reads no ROMIO hints file") and len(text.splitlines()) == 1
    elif fmt == "romio":
        lines = [ln for ln in text.splitlines() if not ln.startswith("#")]
        assert dict(ln.split(" ", 1) for ln in lines) == s.info
    elif fmt == "json":
        data = json.loads(text)
        assert data["mpi_info"] == s.info and data["mca"] == s.mca
    else:
        calls: dict[str, Any] = {}

        class Info(dict[str, str]):
            @staticmethod
            def Create() -> Info:
                return Info()

            def Set(self, k: str, v: str) -> None:
                self[k] = v

        mpi = types.SimpleNamespace(Info=Info, COMM_WORLD=object())
        fake = {"mpi4py": types.SimpleNamespace(MPI=mpi), "h5py": types.SimpleNamespace(File=lambda *a, **kw: calls.update(kw))}
        saved = {k: sys.modules.get(k) for k in fake}
        try:
            sys.modules.update(fake)  # type: ignore[arg-type]
            exec(compile(ast.parse(text), "h5py-snippet", "exec"), {"path": "/x.h5"})
        finally:
            for k, v in saved.items():
                if v is None:
                    sys.modules.pop(k, None)
                else:
                    sys.modules[k] = v
        assert dict(calls["info"]) == s.info


@pytest.mark.parametrize("name", list(TIERS))
def test_every_dialect_runs_under_set_euo_pipefail_and_delivers(tmp_path: Path, name: str) -> None:
    tier = TIERS[name]
    s, flavour = settings_of(tier)
    for fmt in FORMATS:
        if flavour_problem(fmt, flavour, tier.system) is not None:
            assert fmt in ("mpich", "ompi")  # refused: the target's MPI does not read it
            continue
        if fmt not in SHELL:
            check_code(fmt, s, flavour)
            continue
        for output_dir in (True, False):
            where = tmp_path / f"{fmt}-{output_dir}"
            where.mkdir()
            check_shell(where, fmt, tier, s, flavour, output_dir)


def test_job_format_is_complete_for_an_mpich_campaign() -> None:
    """``--format job`` on MPICH carries the hints (a ROMIO hints file), not a note that they are elsewhere."""
    s, flavour = settings_of(TIERS["posix"])
    job = render("job", s, mpi_flavour=flavour)
    assert 'export ROMIO_HINTS="$PWD"/romio-hints.txt' in job and "cb_nodes 2" in job
    assert "nothing beyond" not in job


def test_a_dw_pattern_expands_the_allocation_variable() -> None:
    s, flavour = settings_of(TIERS["datawarp"])
    line = render("mpich", s, mpi_flavour=flavour, patterns=["$DW_JOB_STRIPED/wrfout*"])
    assert line.startswith('export MPICH_MPIIO_HINTS="${DW_JOB_STRIPED}"\'/wrfout*:'), line
    assert "'$DW_JOB_STRIPED" not in line


def test_no_stray_variable_in_any_snippet() -> None:
    """The only variables a snippet reads: the output directory (guarded), the tier's mount, $PWD."""
    allowed = {"OUTPUT_DIR", "DW_JOB_STRIPED", "DW_JOB_PRIVATE", "DW_JOB_autotune", "PWD"}
    for tier in TIERS.values():
        s, flavour = settings_of(tier)
        for fmt in SHELL:
            if flavour_problem(fmt, flavour, tier.system) is None:
                text = render(fmt, s, mpi_flavour=flavour, patterns=tier.patterns)
                code = "\n".join(ln for ln in text.splitlines() if not ln.startswith("#"))
                names = set(re.findall(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)", code))
                assert names <= allowed, (fmt, names - allowed)


def test_a_trial_job_script_expands_a_variable_file_pattern(tmp_path: Path) -> None:
    """A trial's Slurm script: ``app.hint_files`` ``$DW_JOB_STRIPED/wrfout*`` names the job's mount, and the
    data-directory patterns stay the job's ``$DATA_DIR``."""
    from dataclasses import replace

    from autotune.launch import get_launcher
    from autotune.testing import make_requests

    reqs = make_requests(tmp_path, system="shaheen2", fs="bb", config={"bb.nodes": 2, "mpiio.cb_nodes": 2},
                         command=("./app",))
    reqs = [replace(r, app=replace(r.app, hint_files=("$DW_JOB_STRIPED/wrfout*", "rst*"))) for r in reqs]
    text = get_launcher("slurm", {}).render(reqs)
    line = next(ln.strip() for ln in text.splitlines() if "export MPICH_MPIIO_HINTS=" in ln)
    value = subprocess.run(["bash", "-euc", f'{line}\nprintf %s "$MPICH_MPIIO_HINTS"'], capture_output=True, text=True,
                           env={"PATH": "/usr/bin:/bin", "DW_JOB_STRIPED": "/dw/j1", "DATA_DIR": "/dw/j1/rep0"},
                           check=True).stdout
    assert value == "/dw/j1/wrfout*:cb_nodes=2,/dw/j1/rep0/rst*:cb_nodes=2"

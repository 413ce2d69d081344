"""For every kernel and a spread of arguments: the pattern the campaign declares is what the kernel did."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from autotune.campaign import load_campaign
from autotune.kernels import KERNELS

CASES: list[tuple[str, int, dict[str, Any]]] = [
    ("ior", 2, {}),
    ("ior", 2, {"block_size": "1MiB", "transfer_size": "256KiB", "segments": 2, "layout": "strided"}),
    ("ior", 3, {"block_size": "512KiB", "transfer_size": "128KiB", "file_mode": "fpp", "layout": "strided",
                "phases": ["write"]}),
    ("ior", 2, {"block_size": "1MiB", "io_mode": "independent", "phases": ["read"], "no_sync": True}),
    ("h5write", 2, {}),
    ("h5write", 2, {"size": "2MiB", "decomposition": "row"}),
    ("h5write", 3, {"rows": 30, "cols": 7, "decomposition": "row", "phases": ["read", "write"]}),
    ("h5write", 3, {"size": "1MiB", "io_mode": "independent"}),
    ("vpic", 2, {}),
    ("vpic", 3, {"particles_per_rank": "1Ki", "phases": ["write"], "io_mode": "independent"}),
]
COMPARED = ("bytes_per_rank", "transfer_size", "layout", "file_mode", "io_mode", "library", "sync")


@pytest.mark.slow
@pytest.mark.mpi
@pytest.mark.parametrize(("kernel", "ranks", "args"), CASES)
def test_declared_pattern_is_what_the_kernel_did(tmp_path: Path, run_kernel: Any, kernel: str, ranks: int,
                                                 args: dict[str, Any]) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({"app": {"kernel": kernel, "ranks": ranks, "args": args}, "space": "local-romio"}))
    declared = load_campaign(path).app.pattern
    spec = KERNELS.get(kernel)
    argv = spec.argv(spec.resolve(args, ranks), "python", "DATA", "INFO")[5:-4]  # the options only
    run = run_kernel(kernel, ranks, *argv)
    assert run.returncode == 0, run.stderr_lines
    rec = run.record
    did = rec["pattern"]
    assert rec["bytes"] // ranks == declared.bytes_per_rank
    asked = args.get("phases", ["write", "read"])
    assert tuple(did["phases"]) == declared.phases == tuple(p for p in ("write", "read") if p in asked)
    assert {k: did[k] for k in COMPARED} == {k: getattr(declared, k) for k in COMPARED}
    assert did["piece_size"] == declared.piece  # contiguous bytes per piece

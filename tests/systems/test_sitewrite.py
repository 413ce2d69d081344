"""``site profile``'s writing: read back before it is written, written whole, the busy node said, the marks counted."""

from __future__ import annotations

from pathlib import Path

import pytest

from autotune.errors import ConfigError
from autotune.systems import (
    Detection,
    Fact,
    FileSystemInfo,
    Measured,
    ProbedFolder,
    ProbeResult,
    detection_lines,
    save_profile,
    site_profile_yaml,
)

EXT4 = FileSystemInfo("/scratch/me", "ext4", "posix", "/scratch", False, "/proc/self/mountinfo")
FOUND = Detection(Fact(2, "detected", "CPU affinity"), EXT4, None, {"lfs": "", "squeue": "/usr/bin/squeue"})


def _text() -> str:
    probe = ProbeResult(system=[Measured("page_cache_bw", 3.0e9, "64 MiB")])
    return site_profile_yaml("here", FOUND, probe, [ProbedFolder(Path(EXT4.path), EXT4, [], None)], ["on node1"])


def test_detection_lines_give_each_fact_its_mark() -> None:
    assert detection_lines(FOUND) == [
        "cores         2  (detected: CPU affinity)",
        "file system   ext4 at /scratch: profile kind posix, node-local  (detected: /proc/self/mountinfo; /scratch/me)",
        "MPI           not asked (--no-mpi)",
        "tools         squeue  (absent: lfs)"]


@pytest.mark.parametrize(("load", "warned"), [(1.5, False), (9.0, True)])
def test_the_profile_is_written_and_counted(tmp_path: Path, load: float, warned: bool) -> None:
    out, text, said = tmp_path / "here.yaml", _text(), []
    lines = save_profile(out, text, FOUND, load=load, warn=said.append)
    assert out.read_text() == text and [p.name for p in tmp_path.iterdir()] == ["here.yaml"]
    counts = {m: sum(f"# {m}:" in line for line in text.splitlines()) for m in ("measured", "detected", "assumed")}
    assert counts["measured"] >= 1 and counts["detected"] >= 1
    assert lines == [*detection_lines(FOUND), f"wrote {out}: {counts['measured']} measured, {counts['detected']} "
                     f"detected, {counts['assumed']} assumed value(s); use it as `system: {out}` in a campaign"]
    assert bool(said) == warned
    if warned:
        assert said[0].startswith("the node was busy during the probe (load average 9 on 2 cores): its figures")


def test_a_profile_that_does_not_read_back_is_not_written(tmp_path: Path) -> None:
    out = tmp_path / "bad.yaml"
    with pytest.raises(ConfigError):
        save_profile(out, "name: here\nflavour: [\n", FOUND, load=0.0, warn=print)
    assert not any(tmp_path.iterdir())

"""The local probe runs for real (mpiexec, h5py, fsync) and prints every figure the profile takes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from experiments.evaluation import local_probe


@pytest.mark.slow
@pytest.mark.mpi
def test_the_probe_measures_collectives_and_write_back(tmp_path: Path) -> None:
    out = tmp_path / "probe.txt"
    assert local_probe.main(["--reps", "1", "--dir", str(tmp_path), "--out", str(out)]) == 0
    text = out.read_text()
    barriers = {int(n): float(ms) for n, ms in re.findall(r"MPI_Barrier, (\d+) ranks: ([0-9.e+-]+) ms", text)}
    assert set(barriers) == {2, 3, 4, 8} and all(v > 0 for v in barriers.values())
    for what in ("shared file open+sync+close", "two-phase call", "HDF5 file create", "HDF5 dataset create"):
        assert re.search(re.escape(what) + r".*= [0-9.e+-]+ barriers", text), what
    assert re.search(r"oversub_slice [0-9.e+-]+ s", text)
    assert re.search(r"disk write-back .* posix_file_bw [0-9.e+]+, posix_bw [0-9.e+]+", text)

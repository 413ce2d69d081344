"""``autotune model calibrate --out-of-sample``: published figures beyond the cited sources, predicted unfitted.

Each row is a figure published for a system outside the cited sources (or, for Cori, a figure the
seeds do not contain), predicted from a profile built from hardware figures only, with the model's
default constants: nothing here is fitted to these figures. Tolerance, fixed before the comparison:
+-35% for every value (single acceptance or white-paper runs; profiles from nameplate figures).
A miss is printed as a miss; the command exits 1 if any row misses. Sources are in docs/model.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TextIO

from autotune.model import _scenarios as scenarios
from autotune.model._calibrate import Row, write_table
from autotune.model._phases import predict
from autotune.pattern import IOPattern

TOL = 0.35
MIB = 1 << 20
GIB = 1 << 30


@dataclass(frozen=True)
class Figure:
    """One published figure and the run that produced it, as a pattern and configuration."""

    label: str
    source: str
    system: str
    fs: str
    pattern: IOPattern
    config: dict[str, Any]
    published_gb_s: float


def _mib_s(x: float) -> float:
    return x * MIB / 1e9


FIGURES: tuple[Figure, ...] = (
    # Perlmutter acceptance, glennklockwood.com/garden/IOR: 1,382 nodes x 4 ppn, POSIX file per process,
    # 1 MiB transfers, fsync (-e): 3,427,179.21 MiB/s.
    Figure("Perlmutter IOR FPP write, 1382x4, 1 MiB", "Lockwood, IOR acceptance notes", "perlmutter", "scratch",
           IOPattern(ranks=1382 * 4, nodes=1382, bytes_per_rank=4 * GIB, transfer_size=MIB, file_mode="fpp",
                     io_mode="independent", library="posix"), {"lustre.stripe_count": 1}, _mib_s(3_427_179.21)),
    # same source: 1,024 nodes x 4 ppn, stripe count 1, 64 MiB transfers, 64 GiB blocks: 4,435,971.20 MiB/s.
    Figure("Perlmutter IOR FPP write, 1024x4, 64 MiB", "Lockwood, IOR acceptance notes", "perlmutter", "scratch",
           IOPattern(ranks=4096, nodes=1024, bytes_per_rank=64 * GIB, transfer_size=64 * MIB, file_mode="fpp",
                     io_mode="independent", library="posix"), {"lustre.stripe_count": 1}, _mib_s(4_435_971.20)),
    # Cori cscratch Phase I acceptance (glennklockwood.com/benchmarks/ior-results.html), not in the cited sources:
    # 960 nodes x 4 ppn, POSIX FPP, 4 MiB transfers, fsync: 716,886.15 MiB/s.
    Figure("Cori IOR FPP write, 960x4, 4 MiB", "Lockwood, IOR results page", "cori", "scratch",
           IOPattern(ranks=3840, nodes=960, bytes_per_rank=24 * 2**40 // 3840, transfer_size=4 * MIB,
                     file_mode="fpp", io_mode="independent", library="posix"), {"lustre.stripe_count": 1},
           _mib_s(716_886.15)),
    # same: 960 nodes x 32 ppn, MPI-IO shared file, 8 MiB transfers, collective buffering disabled,
    # 8 MiB stripes over all OSTs, 12 TiB: 344,016.32 MiB/s.
    Figure("Cori IOR MPI-IO shared write, 960x32, cb off", "Lockwood, IOR results page", "cori", "scratch",
           IOPattern(ranks=960 * 32, nodes=960, bytes_per_rank=12 * 2**40 // (960 * 32), transfer_size=8 * MIB),
           {"lustre.stripe_count": 248, "lustre.stripe_size": 8 * MIB, "mpiio.romio_cb_write": "disable"},
           _mib_s(344_016.32)),
    # Dell Storage for HPC with Intel EE for Lustre white paper: IOR N-to-1 (POSIX, 24 OSTs, 4 MiB stripes
    # and transfers), peak write 6.2 GB/s (plateau from 24 threads; 64 clients, 64 GB each).
    Figure("Dell EE Lustre IOR N-to-1 write, 64 clients", "Dell white paper, sect. 4.3", "dell-lustre-ee",
           "lustre", IOPattern(ranks=64, nodes=64, bytes_per_rank=64 * 10**9, transfer_size=4 * MIB,
                               io_mode="independent", library="posix"),
           {"lustre.stripe_count": 24, "lustre.stripe_size": 4 * MIB}, 6.2),
    # same: single client IOR N-to-1 write 948 MB/s (1 thread, 1072 GB).
    Figure("Dell EE Lustre IOR N-to-1 write, 1 client", "Dell white paper, sect. 4.3", "dell-lustre-ee", "lustre",
           IOPattern(ranks=1, nodes=1, bytes_per_rank=1072 * 10**9, transfer_size=4 * MIB, io_mode="independent",
                     library="posix"), {"lustre.stripe_count": 24, "lustre.stripe_size": 4 * MIB}, 0.948),
    # same: IOzone N-to-N sequential, single client write 645 MB/s (1 MiB records, 2 TB, file on 1 OST).
    Figure("Dell EE Lustre IOzone N-to-N write, 1 client", "Dell white paper, sect. 4.1", "dell-lustre-ee",
           "lustre", IOPattern(ranks=1, nodes=1, bytes_per_rank=2 * 10**12, transfer_size=MIB, file_mode="fpp",
                               io_mode="independent", library="posix"), {"lustre.stripe_count": 1}, 0.645),
)


def rows() -> list[Row]:
    out = []
    for f in FIGURES:
        model = predict(f.pattern, scenarios.system(f.system), f.fs, f.config).bandwidth_gb_s
        ok = abs(model / f.published_gb_s - 1) <= TOL
        out.append(Row(f"{f.label} [{f.source}]", f"{f.published_gb_s:.4g} GB/s", f"{model:.4g} GB/s",
                       f"+-{TOL:.0%}", ok))
    return out


def report(out: TextIO) -> bool:
    table = rows()
    write_table(table, out, "published")
    hits = sum(r.passed for r in table)
    out.write(f"{hits}/{len(table)} out-of-sample figures within +-{TOL:.0%} (misses are misses)\n")
    return hits == len(table)


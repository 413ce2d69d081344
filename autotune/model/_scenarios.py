"""The seeds' experiments as patterns and configurations (shared by calibration, tests and examples).

Where a seed does not state a detail the choice is written here and in docs/model.md.
"""

from __future__ import annotations

from functools import lru_cache

from autotune.pattern import IOPattern
from autotune.systems import SystemProfile, load_system

MIB = 1 << 20


@lru_cache(maxsize=8)
def system(name: str) -> SystemProfile:
    return load_system(name)


# Seed 000: 1216 ranks (38 Haswell nodes), PnetCDF, one 361 GB restart file written collectively.
SHAHEEN_RESTART = IOPattern(ranks=1216, nodes=38, bytes_per_rank=361_000_000_000 // 1216,
                            transfer_size=361_000_000_000 // 1216, library="pnetcdf")

# Seed 000: WRF-CHEM, 1280 ranks on 40 nodes, 330 x 275 domain; wrfout = 3045341799 bytes written with
# PnetCDF. Assumed: one collective call per 3-D field of ~40 levels (330*275*40*4 B = 14.5 MB), so each
# rank's piece of a call is 14.5 MB / 1280 and non-contiguous (a tile of every level).
WRF_FILE = 3_045_341_799
WRF_CALL = 330 * 275 * 40 * 4
WRF_OUT = IOPattern(ranks=1280, nodes=40, bytes_per_rank=WRF_FILE // 1280, transfer_size=WRF_CALL // 1280,
                    layout="strided", library="pnetcdf")
# One simulated hour: read wrfinput (collective reads of the same layout, seed 000 stats) and write two
# wrfout files (00:00 and 01:00).
WRF_IN = WRF_OUT.with_(phases=("read",))
WRF_BEST = {"mpiio.cb_nodes": 40, "lustre.stripe_size": 256 << 10}  # "best result, total 97 seconds"
WRF_BEST_TOTAL = 97.0

# Seed 003: VPIC-IO (HDF5, 8 variables of 8 M particles x 4 B per rank = 256 MiB per rank), collective.
# Assumed scale for the 64/65 experiment: 2048 ranks on 64 nodes, one aggregator per node.
VPIC_SMALL = IOPattern(ranks=2048, nodes=64, bytes_per_rank=256 * MIB, transfer_size=32 * MIB, library="hdf5")
VPIC_AGGS = {"mpiio.cb_nodes": 64}
# Seed 003: 16K ranks, 32 per node.
VPIC_16K = VPIC_SMALL.with_(ranks=16384, nodes=512)
# Settings of the 16K runs, from the seed's own percentages: 176.78 GB/s = 25.25% of 700 GB/s, the whole
# file system, so all 248 OSTs (stripe size assumed 8 MiB); 61.75 GB/s = 11.07% of 557.8 GB/s, i.e.
# 557.8 / 6.5 = 86 BB nodes. Cray defaults otherwise.
VPIC_16K_LUSTRE = {"lustre.stripe_count": 248, "lustre.stripe_size": 8 * MIB}
VPIC_16K_BB = {"bb.nodes": 86}

# Seed 004: IOR on 16 compute nodes x 4 ranks, 100 MiB block, 1 MiB transfers; 800 GiB in wlm_pool.
IOR_BB = IOPattern(ranks=64, nodes=16, bytes_per_rank=100 * MIB, transfer_size=MIB, io_mode="independent")
IOR_BB_NODES = 10  # 800 GiB / 82 GiB grains

# Seed 001: IOR on 256 Theta nodes x 16 ranks, 1 MiB per rank, collective MPI-IO, one shared file.
THETA_IOR = IOPattern(ranks=4096, nodes=256, bytes_per_rank=MIB, transfer_size=MIB)
THETA_COUNTS = (1, 2, 4, 8, 16, 24, 32, 40, 48, 56)
THETA_SIZES = tuple(s * MIB for s in (1, 2, 4, 8, 16, 32))
# Seed 001: collective vs independent, 48 OSTs, 1 MiB stripes; IOR segments make the file strided.
# Assumed: 64 MiB per rank.
THETA_XFER = IOPattern(ranks=4096, nodes=256, bytes_per_rank=64 * MIB, transfer_size=MIB, layout="strided")
THETA_XFER_CFG = {"lustre.stripe_count": 48, "lustre.stripe_size": MIB}

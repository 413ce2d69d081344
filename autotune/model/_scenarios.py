"""The cited sources' experiments as patterns and configurations (shared by calibration, tests and examples).

Where a source does not state a detail the choice is written here and in docs/model.md.
"""

from __future__ import annotations

from functools import lru_cache

from autotune.pattern import IOPattern
from autotune.systems import SystemProfile, load_system

MIB = 1 << 20


@lru_cache(maxsize=8)
def system(name: str) -> SystemProfile:
    return load_system(name)


# KAUST Shaheen II training: 1216 ranks (38 Haswell nodes), PnetCDF, one 361 GB restart file written collectively.
SHAHEEN_RESTART = IOPattern(ranks=1216, nodes=38, bytes_per_rank=361_000_000_000 // 1216,
                            transfer_size=361_000_000_000 // 1216, library="pnetcdf")

# KAUST Shaheen II training: WRF-CHEM, 1280 ranks on 40 nodes, 330 x 275 domain; wrfout = 3045341799 bytes in 552960
# collective writes (432 calls per rank, MPICH_MPIIO_STATS), PnetCDF, non-contiguous tiles. Assumed: the
# calls are 3-D fields of 40 levels (330*275*40*4 B) and 2-D fields (330*275*4 B), as many of each as
# make 432 calls and the file size: 204 and 228.
WRF_FILE = 3_045_341_799
WRF_3D, WRF_2D = 330 * 275 * 40 * 4, 330 * 275 * 4
WRF_N3 = 204
# Assumed: near-square tiles (330*275/1280 = 71 cells per level, ~8.4 x 8.4), so a tile is rows of 8.4
# cells x 4 B = 34 B pieces in the file.
WRF_PIECE = 34
WRF_PARTS = (
    IOPattern(ranks=1280, nodes=40, bytes_per_rank=WRF_N3 * WRF_3D // 1280, transfer_size=WRF_3D // 1280,
              layout="strided", library="pnetcdf", piece_size=WRF_PIECE),
    IOPattern(ranks=1280, nodes=40, bytes_per_rank=(432 - WRF_N3) * WRF_2D // 1280, transfer_size=WRF_2D // 1280,
              layout="strided", library="pnetcdf", piece_size=WRF_PIECE),
)
# One simulated hour: read wrfinput (same layout, collective reads, KAUST Shaheen II training stats) and write two wrfout
# files (00:00 and 01:00).
WRF_BEST = {"mpiio.cb_nodes": 40, "lustre.stripe_size": 256 << 10}  # "best result, total 97 seconds"
WRF_BEST_TOTAL = 97.0

# LBNL Cori BB abstract: VPIC-IO (HDF5, 8 variables of 8 M particles x 4 B per rank = 256 MiB per rank), collective.
# Assumed scale for the 64/65 experiment: 2048 ranks on 64 nodes, one aggregator per node.
VPIC_SMALL = IOPattern(ranks=2048, nodes=64, bytes_per_rank=256 * MIB, transfer_size=32 * MIB, library="hdf5")
VPIC_AGGS = {"mpiio.cb_nodes": 64}
# LBNL Cori BB abstract: 16K ranks, 32 per node.
VPIC_16K = VPIC_SMALL.with_(ranks=16384, nodes=512)
# Settings of the 16K runs, from the abstract's own percentages: 176.78 GB/s = 25.25% of 700 GB/s, the whole
# file system, so all 248 OSTs (stripe size assumed 8 MiB); 61.75 GB/s = 11.07% of 557.8 GB/s, i.e.
# 557.8 / 6.5 = 86 BB nodes. Cray defaults otherwise.
VPIC_16K_LUSTRE = {"lustre.stripe_count": 248, "lustre.stripe_size": 8 * MIB}
VPIC_16K_BB = {"bb.nodes": 86}

# NERSC BB tuning page: IOR on 16 compute nodes x 4 ranks, 100 MiB block, 1 MiB transfers; 800 GiB in wlm_pool.
IOR_BB = IOPattern(ranks=64, nodes=16, bytes_per_rank=100 * MIB, transfer_size=MIB, io_mode="independent")
IOR_BB_NODES = 10  # 800 GiB / 82 GiB grains

# ALCF Theta I/O talk: IOR on 256 Theta nodes x 16 ranks, 1 MiB per rank, collective MPI-IO, one shared file.
THETA_IOR = IOPattern(ranks=4096, nodes=256, bytes_per_rank=MIB, transfer_size=MIB)
THETA_COUNTS = (1, 2, 4, 8, 16, 24, 32, 40, 48, 56)
THETA_SIZES = tuple(s * MIB for s in (1, 2, 4, 8, 16, 32))
# ALCF Theta I/O talk: collective vs independent, 48 OSTs, 1 MiB stripes. Assumed: IOR's segmented layout (block
# = transfer size, 64 MiB per rank in segments, so ranks' transfers interleave in the file) and IOR's default of
# no fsync (no -e): the talk shows the client cache effect ("independent continues to scale well past OST HDD
# max BW"). The talk states neither; with disjoint 64 MiB blocks per rank Lustre takes locks per block, not per
# transfer, and independent writes would have no reason to lose at 100 KB (the talk's finding).
THETA_XFER = IOPattern(ranks=4096, nodes=256, bytes_per_rank=64 * MIB, transfer_size=MIB, layout="strided",
                       sync=False)
THETA_XFER_CFG = {"lustre.stripe_count": 48, "lustre.stripe_size": MIB}

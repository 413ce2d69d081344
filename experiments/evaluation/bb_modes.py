"""What the model says a burst-buffer choice buys: DataWarp striped vs private on Cori for file per
process, and today's tiers (Theta's node SSDs vs its Lustre; Rabbit xfs vs lustre vs the site Lustre).

Model predictions only (no machine here has these tiers): they show the trade each mechanism encodes
(docs/model.md), not a validation. Run: .venv/bin/python -m experiments.evaluation.bb_modes
"""

from __future__ import annotations

from autotune.errors import ConfigError
from autotune.model import predict
from autotune.pattern import IOPattern
from autotune.systems import load_system


def _gbs(p: IOPattern, system: str, fs: str, cfg: dict[str, object]) -> str:
    try:
        return f"{p.data_bytes / predict(p, load_system(system), fs, cfg).phases[0].seconds / 1e9:8.1f}"
    except ConfigError:
        return "     n/a"


def main() -> None:
    print("Cori DataWarp, IOR file per process, 32 ranks per node, 64 MiB per rank (write GB/s, model)")
    print(f"{'nodes':>6} {'data GiB':>9} {'striped min':>12} {'striped 2x':>11} {'private':>8} {'private grains':>15}")
    for nodes in (2, 8, 32, 128, 512):
        p = IOPattern(ranks=32 * nodes, nodes=nodes, bytes_per_rank=64 << 20, file_mode="fpp", io_mode="independent")
        least = p.bb_nodes(82 * 2**30)
        print(f"{nodes:6d} {p.data_bytes / 2**30:9.0f} {_gbs(p, 'cori', 'bb', {'bb.nodes': least}):>12}"
              f" {_gbs(p, 'cori', 'bb', {'bb.nodes': 2 * least}):>11}"
              f" {_gbs(p, 'cori', 'bb', {'bb.access_mode': 'private'}):>8} {nodes:15d}")
    print("\nTheta, file per process, 1 GiB per rank (write GB/s, model): node SSDs vs Lustre (48 stripes per file: 1)")
    print(f"{'nodes':>6} {'ranks/node':>10} {'SSD':>8} {'Lustre':>8}")
    for nodes, rpn in ((16, 2), (128, 2), (1024, 2), (1024, 16)):
        p = IOPattern(ranks=rpn * nodes, nodes=nodes, bytes_per_rank=1 << 30, file_mode="fpp", io_mode="independent")
        print(f"{nodes:6d} {rpn:10d} {_gbs(p, 'theta', 'ssd', {}):>8} {_gbs(p, 'theta', 'projects', {}):>8}")
    print("\nrabbit-nnf (ASSUMED drive/link rates), file per process, 16 ranks per node, 1 GiB each (write GB/s, model)")
    print(f"{'nodes':>6} {'xfs':>8} {'lustre':>8} {'site Lustre':>12}")
    for nodes in (1, 8, 16, 64, 512):
        p = IOPattern(ranks=16 * nodes, nodes=nodes, bytes_per_rank=1 << 30, file_mode="fpp", io_mode="independent")
        print(f"{nodes:6d} {_gbs(p, 'rabbit-nnf', 'rabbit', {'rabbit.type': 'xfs'}):>8}"
              f" {_gbs(p, 'rabbit-nnf', 'rabbit', {'rabbit.type': 'lustre'}):>8} {_gbs(p, 'rabbit-nnf', 'lustre', {}):>12}")


if __name__ == "__main__":
    main()

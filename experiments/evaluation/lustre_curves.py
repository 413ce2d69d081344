"""The Lustre model against public stripe-count curves (experiments/evaluation/sweeps/).

    PYTHONPATH=$PWD .venv/bin/python -m experiments.evaluation.lustre_curves \
        --out experiments/evaluation/results/lustre_curves

Tolerance, stated before any comparison (per curve, on each configuration's median):
- Spearman rank correlation between predicted and measured values >= 0.8;
- best setting: the model's best configuration is within a factor 2 of the measured best one in every swept
  numeric parameter (stripe count 40..160 when the measured best is 80) and equal in the categorical ones;
- every point: predicted / measured within 0.5..2.
A curve passes only if all three hold. A curve some model constant was fitted to is reported but marked
``fitted``: it does not count as validation. Each system's profile comes from its public hardware figures
(experiments/evaluation/sweeps/profiles/, the shipped shaheen2 profile); nothing is fitted here.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scipy.stats import spearmanr

from autotune.campaign import SiteFit, heldout_errors
from autotune.launch import Recording, parse_key
from autotune.model import FIT_NAMES, PRIOR_WEIGHT, SPAN, MeasuredRun, fit_constants, predict
from autotune.pattern import IOPattern
from autotune.systems import SystemProfile, load_system

HERE = Path(__file__).resolve().parent / "sweeps"
MIB = 1 << 20
RHO_MIN, BEST_FACTOR, POINT_FACTOR = 0.8, 2.0, 2.0


@dataclass(frozen=True)
class Curve:
    """One recorded curve: its file, the system profile, the pattern, how a row becomes a model configuration."""

    name: str
    csv: str
    system: str                     # a profile path under sweeps/profiles, or a shipped profile's name
    pattern: IOPattern
    config: Callable[[dict[str, str], dict[str, str]], dict[str, Any]]
    select: Callable[[dict[str, str]], bool] = lambda key: True
    fitted: bool = False
    note: str = ""
    extra: dict[str, str] = field(default_factory=dict)


def _ranger_cfg(key: dict[str, str], row: dict[str, str]) -> dict[str, Any]:
    sc = int(key["lustre.stripe_count"])
    return {"lustre.stripe_count": sc, "lustre.stripe_size": int(row["stripe_size_mib"]) * MIB,
            "mpiio.cb_nodes": int(row["writers"])}


def _bw_cfg(key: dict[str, str], row: dict[str, str]) -> dict[str, Any]:
    return {"lustre.stripe_count": int(key["lustre.stripe_count"]), "lustre.stripe_size": MIB,
            "mpiio.romio_cb_write": key["mpiio.romio_cb_write"]}


# Ranger: 256 ranks x one 100^3 block of doubles, a hyperslab of a 3-D dataset: contiguous pieces are rows of
# 100 values (800 B); one collective call per rank (cubeTestHDF5 --h5slab, T3PIO's hints).
RANGER = IOPattern(ranks=256, nodes=16, bytes_per_rank=8_000_000, transfer_size=8_000_000, layout="strided",
                   library="hdf5", piece_size=800)
# Blue Waters: 1024 ranks x a 512 x 512 block of doubles (assumed 32 x 32 decomposition): 4 KiB pieces.
BLUEWATERS = IOPattern(ranks=1024, nodes=64, bytes_per_rank=2 * MIB, transfer_size=2 * MIB, layout="strided",
                       piece_size=4096)
# Cirrus E1000: IOR POSIX on one shared file, 36 ranks per node, 100 segments of a 16 MiB block per rank written as
# 2 MiB transfers, fsync at the end (ior -b 16m -t 2m -s 100 -e); each rank's block is contiguous within a segment.
CIRRUS_RPN, CIRRUS_NODES = 36, (1, 2, 3, 4)


def cirrus(nodes: int) -> IOPattern:
    """The Cirrus E1000 IOR pattern on ``nodes`` nodes (weak scaling: the same bytes per rank)."""
    return IOPattern(ranks=CIRRUS_RPN * nodes, nodes=nodes, bytes_per_rank=100 * 16 * MIB, transfer_size=2 * MIB,
                     block_size=16 * MIB, io_mode="independent", library="posix")


def _stripe_cfg(key: dict[str, str], row: dict[str, str]) -> dict[str, Any]:
    return {"lustre.stripe_count": int(key["lustre.stripe_count"])}


# ARCHER fs3 (github.com/ARCHER-CSE/parallel-io, parallel_io_tuning.md): 24 processes per node. Shared file: 16 MiB
# per process as a collective 3-D subarray (benchio's 128^3 doubles: contiguous rows of 128 values, 1 KiB; assumed,
# the page names no program). File per process: one 1 GiB unformatted Fortran write per process (assumed: one record).
ARCHER_RPN, ARCHER_SSF, ARCHER_FPP = 24, (24, 96, 384, 1536, 6144), (24, 96, 384, 1536)


def archer_ssf(procs: int) -> IOPattern:
    return IOPattern(ranks=procs, nodes=procs // ARCHER_RPN, bytes_per_rank=16 * MIB, transfer_size=16 * MIB,
                     layout="strided", piece_size=1024, io_mode="collective", library="mpiio")


def archer_fpp(procs: int) -> IOPattern:
    return IOPattern(ranks=procs, nodes=procs // ARCHER_RPN, bytes_per_rank=1024 * MIB, transfer_size=1024 * MIB,
                     file_mode="fpp", io_mode="independent", library="posix")


def _layout_cfg(key: dict[str, str], row: dict[str, str]) -> dict[str, Any]:
    return {"lustre.stripe_count": int(key["lustre.stripe_count"]),
            "lustre.stripe_size": int(key.get("lustre.stripe_size", MIB))}


# Durham COSMA6 (github.com/ARCHER-CSE/parallel-io, benchmark/benchio): 16 processes per node (assumed: the nodes' core
# count; the job scripts are not published), each writing a 256^3 block of doubles (128 MiB) as a collective 3-D
# subarray of one shared file, no hints: contiguous rows of 256 values (2 KiB). Its -1 runs (every OST, a count the
# source does not give) are left out, as in its campaigns.
COSMA6_RPN, COSMA6_PROCS = 16, (32, 64, 128, 256, 512, 1024, 2048, 4096)


def cosma6(procs: int) -> IOPattern:
    return IOPattern(ranks=procs, nodes=procs // COSMA6_RPN, bytes_per_rank=128 * MIB, transfer_size=128 * MIB,
                     layout="strided", piece_size=2048, io_mode="collective", library="mpiio")


def explicit(key: dict[str, str]) -> bool:
    """Whether a recorded configuration names its stripe count (not -1, every OST: a count the source may not give)."""
    return key.get("lustre.stripe_count") != "-1"


SHAHEEN = IOPattern(ranks=1216, nodes=38, bytes_per_rank=361_000_000_000 // 1216,
                    transfer_size=361_000_000_000 // 1216, library="pnetcdf")

CURVES: tuple[Curve, ...] = (
    Curve("Ranger HDF5 collective, 256 ranks / 16 nodes", "ranger-t3pio-stripe-count.csv", "ranger", RANGER,
          _ranger_cfg),
    Curve("Blue Waters collective, 1024 ranks / 64 nodes", "bluewaters-ioda-stripe-count.csv", "bluewaters",
          BLUEWATERS, _bw_cfg, lambda k: k["mpiio.romio_cb_write"] == "enable"),
    Curve("Blue Waters independent, 1024 ranks / 64 nodes", "bluewaters-ioda-stripe-count.csv", "bluewaters",
          BLUEWATERS.with_(io_mode="independent"), _bw_cfg, lambda k: k["mpiio.romio_cb_write"] == "disable"),
    *(Curve(f"Cirrus E1000 IOR POSIX shared, {n} node(s) x 36 ranks", f"cirrus-e1000-ior-shared-{n}n.csv",
            "cirrus-e1000", cirrus(n), _stripe_cfg) for n in CIRRUS_NODES),
    *(Curve(f"ARCHER fs3 MPI-IO collective shared file, {p} processes / {p // ARCHER_RPN} node(s)",
            f"archer-fs3-ssf-mpiio-{p}p.csv", "archer", archer_ssf(p), _layout_cfg) for p in ARCHER_SSF),
    *(Curve(f"ARCHER fs3 Fortran file per process, {p} processes / {p // ARCHER_RPN} node(s)",
            f"archer-fs3-fpp-fortran-{p}p.csv", "archer", archer_fpp(p), _layout_cfg) for p in ARCHER_FPP),
    *(Curve(f"COSMA6 benchio MPI-IO collective shared file, {p} processes / {p // COSMA6_RPN} nodes",
            f"cosma6-benchio-mpiio-ssf-{p}p.csv", "cosma6", cosma6(p), _stripe_cfg, explicit) for p in COSMA6_PROCS),
    Curve("Shaheen PnetCDF restart, 1216 ranks / 38 nodes", "shaheen-restart-stripe-count.csv", "shaheen2", SHAHEEN,
          _stripe_cfg, fitted=True,
          note="write_latency, client_stream, exchange_bw, straggler_cv were fitted to these two points"),
)


# Single runs on the same Cirrus /work (14.6 TiB under test, Feb 2024), from the same repository's IOR reports
# (results/cirrus-e1000/reports/...): what bounds one node and one process there. Same tolerance as a curve's
# points (predicted / measured within 0.5..2); no constant was chosen from them.
POINTS: tuple[tuple[str, str, IOPattern, float], ...] = (
    ("Cirrus E1000 IOR POSIX file per process, 1 node x 36 ranks, 2 MiB, fsync (median of the 8 runs recorded)",
     "reports/fpp/report-1N-36cpN--2024-02-18-09.55.32-S1000-s1.txt",
     IOPattern(ranks=36, nodes=1, bytes_per_rank=1000 * 16 * MIB, transfer_size=2 * MIB, block_size=16 * MIB,
               file_mode="fpp", io_mode="independent", library="posix"), 6007.0),
    ("Cirrus E1000 IOR POSIX one process, one file on one OST, 2 MiB, fsync (mean of 10 runs)",
     "reports/ost/3/report-1N-1cpN--2024-02-17-18.08.42-S1000.txt",
     IOPattern(ranks=1, nodes=1, bytes_per_rank=1000 * 16 * MIB, transfer_size=2 * MIB, block_size=16 * MIB,
               file_mode="fpp", io_mode="independent", library="posix"), 938.97),
)


def points() -> list[dict[str, Any]]:
    """The model against the single runs of ``POINTS`` (the Cirrus profile, stripe count 1)."""
    system = _system("cirrus-e1000")
    out = []
    for label, source, pattern, measured in POINTS:
        model = _value(predict(pattern, system, None, {"lustre.stripe_count": 1}), "write_bandwidth_mib_s")
        out.append({"point": label, "source": source, "measured": measured, "model": model,
                    "ratio": model / measured, "passed": 1 / POINT_FACTOR <= model / measured <= POINT_FACTOR})
    return out


def _system(name: str) -> SystemProfile:
    path = HERE / "profiles" / f"{name}.yaml"
    return load_system(str(path) if path.exists() else name)


def _rows(rec: Recording) -> dict[str, dict[str, str]]:
    """The first CSV row of each configuration (its extra columns)."""
    import csv

    lines = [ln for ln in rec.path.read_text().splitlines() if ln.strip() and not ln.startswith("#")]
    out: dict[str, dict[str, str]] = {}
    for row in csv.DictReader(lines):
        out.setdefault(row["config"], row)
    return out


def _value(pred: Any, metric: str) -> float:
    if metric == "seconds":
        return float(pred.seconds)
    return float(pred.bandwidth_gb_s) * 1e9 / MIB     # MiB/s


def _best_close(pred_key: dict[str, str], meas_key: dict[str, str]) -> bool:
    for k, v in meas_key.items():
        try:
            a, b = float(pred_key[k]), float(v)
        except ValueError:
            if pred_key[k] != v:
                return False
            continue
        if max(a, b) > BEST_FACTOR * min(a, b):
            return False
    return True


def evaluate(curve: Curve) -> dict[str, Any]:
    """Predicted and measured values of every configuration of ``curve``, and the three criteria."""
    rec = Recording.load(HERE / curve.csv)
    rows = _rows(rec)
    system = _system(curve.system)
    better = min if rec.metric == "seconds" else max
    points: list[dict[str, Any]] = []
    for key, measured in rec.medians().items():
        parsed = parse_key(key)
        if not curve.select(parsed):
            continue
        model = _value(predict(curve.pattern, system, None, curve.config(parsed, rows[key])), rec.metric)
        points.append({"config": key, "measured": measured, "model": model, "ratio": model / measured})
    meas_best = better(points, key=lambda p: p["measured"])
    model_best = better(points, key=lambda p: p["model"])
    flat = max(p["model"] for p in points) <= min(p["model"] for p in points) * (1 + 1e-9)
    rho = math.nan if flat else (  # a flat prediction ranks nothing: undefined, a miss
        float(spearmanr([p["measured"] for p in points], [p["model"] for p in points])[0]) if len(points) > 2
        else (1.0 if (points[0]["measured"] - points[1]["measured"]) * (points[0]["model"] - points[1]["model"]) > 0
              else -1.0))
    rho_ok = rho >= RHO_MIN
    best_ok = _best_close(parse_key(model_best["config"]), parse_key(meas_best["config"]))
    within = all(1 / POINT_FACTOR <= p["ratio"] <= POINT_FACTOR for p in points)
    return {"curve": curve.name, "file": curve.csv, "system": curve.system, "metric": rec.metric,
            "fitted": curve.fitted, "note": curve.note, "points": points, "rho": rho, "rho_ok": rho_ok,
            "measured_best": meas_best["config"], "model_best": model_best["config"], "best_ok": best_ok,
            "within_2x": within, "passed": rho_ok and best_ok and within and not math.isnan(rho)}


def refit(curve: Curve) -> dict[str, Any] | None:
    """Not validation: the Lustre constants ``autotune model fit`` fits, fitted to the curve itself, and the
    k-fold held-out error ``autotune model advise`` reports as its trust (None below 4 points)."""
    rec = Recording.load(HERE / curve.csv)
    rows, system = _rows(rec), _system(curve.system)
    fs = system.filesystem()
    runs = [MeasuredRun(curve.pattern, curve.config(parse_key(k), rows[k]), v, rec.metric)
            for k, v in rec.medians().items() if curve.select(parse_key(k))]
    if len(runs) < 4:
        return None
    names = FIT_NAMES[fs.kind]
    fit = fit_constants(runs, system, names, fs.name, bounds=(1 / SPAN, SPAN), prior_weight=PRIOR_WEIGHT)
    held = sorted(heldout_errors(SiteFit(system, fs, runs, tuple(fit.values), fit)))
    return {"rms_factor": math.exp(fit.rms_log_error), "heldout_median": math.exp(held[len(held) // 2]),
            "heldout_worst": math.exp(held[-1]), "points": len(runs)}


def report(results: list[dict[str, Any]]) -> str:
    lines = ["| curve | rho | best: model / measured | points within 2x | verdict |", "|---|---|---|---|---|"]
    for r in results:
        worst = max(r["points"], key=lambda p: abs(math.log(p["ratio"])))
        verdict = "fitted (not validation)" if r["fitted"] else ("PASS" if r["passed"] else "**miss**")
        rho = "undefined (model flat)" if math.isnan(r["rho"]) else f"{r['rho']:.2f}"
        lines.append(f"| {r['curve']} | {rho}{'' if r['rho_ok'] else ' (miss)'} | {r['model_best']} / "
                     f"{r['measured_best']}{'' if r['best_ok'] else ' (miss)'} | "
                     f"{sum(1 / POINT_FACTOR <= p['ratio'] <= POINT_FACTOR for p in r['points'])}/{len(r['points'])}"
                     f" (worst x{worst['ratio']:.2f} at {worst['config']}) | {verdict} |")
    lines.append("")
    for r in results:
        lines.append(f"{r['curve']} ({r['file']}, metric {r['metric']}):")
        lines.extend(f"    {p['config']:<60} measured {p['measured']:10.4g}  model {p['model']:10.4g}  x{p['ratio']:.2f}"
                     for p in r["points"])
    valid = [r for r in results if not r["fitted"]]
    lines.append(f"\n{sum(r['passed'] for r in valid)}/{len(valid)} unfitted curves within tolerance"
                 " (rho >= 0.8, best within 2x, every point within 2x)")
    for r in results:
        if r.get("refit"):
            f = r["refit"]
            lines.append(f"refitted to its own curve (not validation), {r['curve']}: rms x{f['rms_factor']:.2f},"
                         f" 5-fold held-out median x{f['heldout_median']:.2f}, worst x{f['heldout_worst']:.2f}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="write OUT.md and OUT.json")
    args = parser.parse_args(argv)
    results = [evaluate(c) for c in CURVES]
    for r, c in zip(results, CURVES, strict=True):
        r["refit"] = refit(c)
    single = points()
    text = report(results) + "\nSingle runs on the same Cirrus file system (github.com/lucaparisi91/filesystem_benchmarks" \
        " results/cirrus-e1000/), MiB/s, tolerance 0.5..2:\n" + "".join(
            f"    {p['point']}: measured {p['measured']:.4g}, model {p['model']:.4g} x{p['ratio']:.2f}"
            f" {'PASS' if p['passed'] else 'MISS'}\n" for p in single)
    sys.stdout.write(text)
    if args.out:
        Path(args.out + ".md").write_text(text)
        Path(args.out + ".json").write_text(json.dumps({"curves": results, "points": single}, indent=1) + "\n")
    return 0 if all(r["passed"] for r in results if not r["fitted"]) and all(p["passed"] for p in single) else 1


if __name__ == "__main__":
    sys.exit(main())

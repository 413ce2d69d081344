"""What in a Darshan log predicts headroom, with the model's predicted gain and the parameters to search.

Own checks rather than Drishti's (``drishti-io``): Drishti 0.8 parses the command line when its modules
are imported and reports into a global console instead of returning values, so it cannot be called as a
library; its thresholds are reused here (small request < 1 MiB, 10% of requests and more than 1000;
misaligned 10%; collective share 50%; metadata time). Each finding is priced with the performance model:
the job's pattern with the job's settings against the same pattern with the suggested ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from autotune.darshan._log import JobLog
from autotune.darshan._pattern import BINS, Derived, histogram
from autotune.optimize import model_metric, model_ranked
from autotune.space import BoundSpace, Config, aggregators
from autotune.tiers import LUSTRE
from autotune.units import format_size

SMALL_BYTES = 1 << 20
SMALL_SHARE, SMALL_ABSOLUTE = 0.10, 1000
MISALIGNED_SHARE = 0.10
INDEPENDENT_SHARE = 0.5
METADATA_SHARE = 0.3
LARGE_SHARED = 1 << 30
MIN_GAIN = 1.05
SLOW_OST = 3.0          # an OST whose files took this many times the median time per byte


@dataclass
class Finding:
    code: str
    title: str
    evidence: str
    params: list[str]
    suggestion: dict[str, Any] = field(default_factory=dict)
    gain: float | None = None          # model: suggested / job's (metric ratio, >1 is better)
    note: str = ""

    def lines(self) -> list[str]:
        gain = f"model predicts {self.gain:.2f}x" if self.gain is not None else "model: no prediction"
        out = [f"[{self.code}] {self.title}: {self.evidence}", f"    {gain}"
               + (f" with {_fmt(self.suggestion)}" if self.suggestion else "") + (f" ({self.note})" if self.note else "")]
        out.append(f"    search: {', '.join(self.params)}" if self.params else "    search: nothing on this target")
        return out


def _fmt(cfg: dict[str, Any]) -> str:
    return ", ".join(f"{k}={format_size(v) if k.endswith(('stripe_size', 'buffer_size', 'alignment')) else v}"
                     for k, v in sorted(cfg.items()))


def _ratio(space: BoundSpace, metric: str, job: Config, cfg: Config, pattern_space: BoundSpace | None = None) -> float | None:
    base = model_metric(space, job, metric)
    new = model_metric(pattern_space or space, cfg, metric)
    if base is None or new is None or base <= 0:
        return None
    return new / base if "bandwidth" in metric else base / new


def _active(space: BoundSpace, *names: str) -> list[str]:
    have = {p.name for p in space.active}
    return [n for n in names if n in have]


def _best_of(space: BoundSpace, metric: str, job: Config, name: str) -> tuple[Any, float | None]:
    """The model's best value of one parameter, the others as the job ran."""
    param = next((p for p in space.active if p.name == name), None)
    if param is None:
        return None, None
    best, best_gain = job.get(name), 1.0
    for v in param.values():
        cfg = {**job, name: v}
        if not space.feasible(cfg):
            continue
        g = _ratio(space, metric, job, cfg)
        if g is not None and g > best_gain * 1.001:
            best, best_gain = v, g
    return best, best_gain


def slow_ost(log: JobLog | None, d: Derived) -> Finding | None:
    """An OST whose files took far longer per byte than the others (LUSTRE module + POSIX times)."""
    if log is None or log.lustre is None:
        return None
    by_name = {f.name: f for f in d.files}
    per_ost: dict[int, list[float]] = {}
    file_secs: dict[str, float] = {}
    for fid, osts in zip(log.lustre["id"], log.lustre["LUSTRE_OST_IDS"], strict=True):
        f = by_name.get(log.names.get(int(fid), ""))
        if f is None or not len(osts) or f.bytes == 0:
            continue
        secs = f.counters.get("POSIX_F_WRITE_TIME", 0.0) + f.counters.get("POSIX_F_READ_TIME", 0.0)
        file_secs[f.name] = secs
        for ost in osts:
            per_ost.setdefault(int(ost), []).append(secs / f.bytes)
    if len(per_ost) < 4:
        return None
    mean = {o: sum(v) / len(v) for o, v in per_ost.items()}
    median = sorted(mean.values())[len(mean) // 2]
    worst = max(mean, key=lambda o: mean[o])
    if median <= 0 or mean[worst] < SLOW_OST * median:
        return None
    on_worst = {log.names.get(int(fid), "") for fid, osts in zip(log.lustre["id"], log.lustre["LUSTRE_OST_IDS"], strict=True)
                if worst in {int(o) for o in osts}}
    rest = [t for n, t in file_secs.items() if n not in on_worst]
    ratio = max(file_secs.values()) / max(rest) if rest and max(rest) > 0 else None
    note = (f"observed: the slowest file would be {ratio:.1f}x faster off OST {worst}; report it to the site"
            if ratio else "report it to the site")
    return Finding("slow-ost", "a slow OST", f"files on OST {worst} took {mean[worst] / median:.1f}x the median time "
                   f"per byte of the {len(mean)} OSTs used", ["lustre.stripe_count"], {}, None,
                   note + "; striping over more OSTs spreads each file's share")


def diagnose(d: Derived, nprocs: int, space: BoundSpace, job: Config, metric: str,
             log: JobLog | None = None) -> list[Finding]:
    """The findings for a job (``d``) on the bound space, priced against the job's configuration ``job``."""
    out: list[Finding] = []
    ost = slow_ost(log, d)
    if ost is not None:
        out.append(ost)
    layer = "MPI-IO" if any(f.layer == "MPI-IO" for f in d.matter) else "POSIX"
    p = d.pattern
    for op in p["phases"]:
        hist = histogram(d.matter, layer, op)
        ops = sum(hist.values())
        small = sum(hist[s] for s, lo, _ in BINS if lo < SMALL_BYTES)
        if ops and small / ops >= SMALL_SHARE and small > SMALL_ABSOLUTE:
            params = _active(space, "mpiio.romio_cb_write", "mpiio.cb_nodes", "mpiio.cb_buffer_size", "lustre.stripe_size")
            sugg = {"mpiio.romio_cb_write": "enable"} if "mpiio.romio_cb_write" in params else {}
            gain = _ratio(space, metric, job, {**job, **sugg}) if sugg else None
            out.append(Finding("small-" + op + "s", f"small {op}s",
                               f"{small:.0f} of {ops:.0f} {layer} {op}s ({small / ops:.0%}) are below 1 MiB", params, sugg, gain))
    posix_ops = sum(f.counters.get("POSIX_WRITES", 0) + f.counters.get("POSIX_READS", 0) for f in d.matter)
    misaligned = sum(f.counters.get("POSIX_FILE_NOT_ALIGNED", 0) for f in d.matter)
    if posix_ops and misaligned / posix_ops >= MISALIGNED_SHARE:
        align = int(job.get("lustre.stripe_size", 1 << 20))
        aligned: dict[str, Any] = {}
        if "hdf5.alignment" in _active(space, "hdf5.alignment") and p["library"] == "hdf5":
            aligned["hdf5.alignment"] = align
        gain = _ratio(space, metric, job, {**job, **aligned}) if aligned else None
        out.append(Finding("misaligned", "misaligned file accesses",
                           f"{misaligned:.0f} of {posix_ops:.0f} POSIX accesses ({misaligned / posix_ops:.0%}) do not start on "
                           "the file-system block boundary",
                           _active(space, "hdf5.alignment", "lustre.stripe_size"), aligned, gain,
                           "" if aligned else "align the application's offsets to the stripe size"))
    coll, indep = d.collective_ops, d.independent_ops
    if p["file_mode"] == "shared" and nprocs > 1 and (layer == "POSIX" or indep > INDEPENDENT_SHARE * (coll + indep)):
        what = (f"{indep:.0f} of {coll + indep:.0f} MPI-IO operations are independent" if layer == "MPI-IO"
                else f"a shared file written through POSIX by {nprocs} ranks")
        library = "mpiio" if layer == "POSIX" else space.pattern.library
        coll_space = BoundSpace.build(space.spec, space.system, space.fs,
                                      space.pattern.with_(io_mode="collective", library=library))
        sugg = {"mpiio.romio_cb_write": "enable"} if _active(coll_space, "mpiio.romio_cb_write") else {}
        gain = _ratio(space, metric, job, {**job, **sugg}, coll_space)
        out.append(Finding("independent-shared", "independent I/O on a shared file", what,
                           _active(coll_space, "mpiio.romio_cb_write", "mpiio.cb_nodes"), sugg, gain,
                           "if the application makes collective calls (MPI_File_write_at_all, H5FD_MPIO_COLLECTIVE)"))
    main = d.matter[0]
    count = job.get("lustre.stripe_count")
    if space.fs.tier is LUSTRE and main.shared and main.bytes >= LARGE_SHARED and count == 1:
        best, gain = _best_of(space, metric, job, "lustre.stripe_count")
        out.append(Finding("one-stripe", "one stripe for a large shared file",
                           f"{main.name} ({format_size(main.bytes)}) is striped over 1 OST",
                           _active(space, "lustre.stripe_count", "lustre.stripe_size", "mpiio.cb_nodes"),
                           {"lustre.stripe_count": best} if best != count else {}, gain))
    if p["io_mode"] == "collective" and _active(space, "mpiio.cb_nodes"):
        now = aggregators(space.system, space.fs, space.pattern, job)
        best, gain = _best_of(space, metric, job, "mpiio.cb_nodes")
        if best is not None and gain is not None and gain >= MIN_GAIN:
            too = "few" if int(best) > now else "many"
            out.append(Finding(f"too-{too}-aggregators", f"too {too} aggregators",
                               f"{now} aggregator(s) for {nprocs} ranks on {space.pattern.nodes} node(s)",
                               _active(space, "mpiio.cb_nodes", "cray.cb_nodes_multiplier"), {"mpiio.cb_nodes": best}, gain))
    times = {k: sum(f.counters.get(f"POSIX_F_{k}_TIME", 0.0) for f in d.files) for k in ("META", "READ", "WRITE")}
    total = sum(times.values())
    if total > 0 and times["META"] / total >= METADATA_SHARE:
        fewer = BoundSpace.build(space.spec, space.system, space.fs, space.pattern.with_(file_mode="shared", files=1))
        gain = _ratio(space, metric, job, job, fewer) if p["file_mode"] == "fpp" else None
        out.append(Finding("metadata-heavy", "metadata-heavy I/O",
                           f"{times['META'] / total:.0%} of POSIX I/O time is metadata (open/stat/seek/close) over "
                           f"{len(d.files)} file(s)", [], {}, gain,
                           "an application change: fewer files (one shared file) or fewer opens; no hint fixes it"))
    top = model_ranked(space, metric, "bandwidth" in metric, top=1)
    if top:
        gain = _ratio(space, metric, job, top[0])
        changed = {k: v for k, v in top[0].items() if job.get(k) != v}
        if gain is not None and gain < MIN_GAIN:  # the model's surface is flat here: nothing to suggest
            out.append(Finding("headroom", "the model sees no headroom on this target",
                               f"its best configuration is within {MIN_GAIN - 1:.0%} of the job's own settings",
                               [], {}, gain, "measure: the model may not capture this file system"))
        else:
            out.append(Finding("headroom", "the model's best configuration on this target",
                               "against the job's own settings", sorted(changed), changed, gain))
    return out


DISAGREE = 2.0   # measured and predicted this many times apart: said plainly


def measured_bandwidth(d: Derived) -> float | None:
    """MiB/s of the main phase on the main files, as the log measured it: their bytes over the span from the
    first start to the last end of that operation (the ``darshan`` extractor's ``<op>_bandwidth_mib_s``)."""
    op = d.main_op
    starts, ends, moved = [], [], 0
    for f in d.matter:
        n = f.bytes_written if op == "write" else f.bytes_read
        p = f.layer.replace("-", "")
        start = f.counters.get(f"{p}_F_{op.upper()}_START_TIMESTAMP", 0.0)
        end = f.counters.get(f"{p}_F_{op.upper()}_END_TIMESTAMP", 0.0)
        if n > 0 and 0 < start <= end:
            starts.append(start)
            ends.append(end)
            moved += n
    span = max(ends, default=0.0) - min(starts, default=0.0)
    return moved / 2**20 / span if moved and span > 0 else None


def measured_and_predicted(d: Derived, space: BoundSpace, job: Config, has_baseline: bool) -> str:
    """One line: the log's measured bandwidth beside the model's prediction for the default (and for the
    job's own settings), and plainly whether they disagree by more than ``DISAGREE`` times."""
    metric = f"{d.main_op}_bandwidth_mib_s"
    seen = measured_bandwidth(d)
    default = model_metric(space, space.default_config(), metric)
    has_baseline = has_baseline and job != space.default_config()
    own = model_metric(space, job, metric) if has_baseline else default
    said = f"log measured {seen:.0f} MiB/s ({d.main_op}, main files)" if seen else \
        f"the log has no {d.main_op} timing for its main files"
    if default is None:
        return f"{said}; the model cannot predict this target"
    said += f"; the model predicts {default:.0f} MiB/s for the default"
    if has_baseline and own is not None:
        said += f", {own:.0f} MiB/s for the job's own settings (baseline)"
    if seen and own:
        ratio = max(seen, own) / min(seen, own)
        said += (f"; they disagree by {ratio:.1f}x: the model's figures for this target do not describe this job "
                 "well, so take its predicted gains as rough; the trials measure" if ratio > DISAGREE
                 else f"; they agree within {DISAGREE:.0f}x")
    return said

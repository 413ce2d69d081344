"""``init --from-darshan``: a campaign file whose ``app.pattern`` is what the logged job did."""

from __future__ import annotations

import copy
import os
import re
import shlex
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from autotune.darshan._diagnose import Finding, diagnose, measured_and_predicted
from autotune.darshan._log import JobLog, read_log
from autotune.darshan._output import DATA, data_path, move_outputs, refuse_in_place, refuse_unnamed
from autotune.darshan._pattern import Derived, FileFigures, derive
from autotune.darshan._target import Target, choose_target, job_settings, known_paths
from autotune.space import BoundSpace
from autotune.units import format_size


def human(n: float) -> str:
    """Bytes for people: 2.0 TiB, 461.0 GiB, 512 B."""
    for unit, scale in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n:.0f} B"

PRESETS = {"ior": "ior", "h5bench": "h5bench", "fio": "fio", "mdtest": "mdtest"}
LOG_ENV = "DARSHAN_LOGFILE"
LOG_FILE = "{run_dir}/app.darshan"


@dataclass
class CampaignFromLog:
    """What a Darshan log gave: the job, its derived pattern, the target, its settings and the campaign text."""

    log: JobLog
    derived: Derived
    target: Target
    settings: dict[str, Any]
    text: str
    notes: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    notice: str = ""   # one line: what the log lacks (incomplete or unreadable modules); '' when complete
    compared: str = ""  # the log's measured bandwidth beside the model's prediction


def missing(log: JobLog) -> str:
    """One line naming the log and what it lacks (modules Darshan could not keep all records of, modules
    PyDarshan could not read), or ''."""
    lacks = []
    if log.partial:
        lacks.append(f"its {', '.join(log.partial)} records are incomplete (the log's partial flag: Darshan reached "
                     "its memory or record limit for the module while the job ran, so files it met later are missing)")
    if log.skipped:
        lacks.append(f"not read (PyDarshan failed): {', '.join(log.skipped)}")
    if log.unread:
        lacks.append(f"libdarshan-util could not read all of it ({log.unread})")
    if not lacks:
        return ""
    return f"darshan log {str(log.path)!r}: {'; '.join(lacks)}; the campaign is from the records it holds"


def preset_for(command: list[str]) -> str | None:
    """The metric preset of a benchmark command (ior, h5bench, fio, mdtest), else None."""
    for word in command[:3]:
        base = os.path.basename(word).lower()
        for key, preset in PRESETS.items():
            if base == key or base.startswith(key + "_") or base.startswith(key + "-") or base.startswith(key + "."):
                return preset
    return None


def _argv(exe: str) -> list[str]:
    """The logged command line as an argv (Darshan may truncate it: fall back to splitting on spaces)."""
    try:
        return shlex.split(exe)
    except ValueError:
        return exe.split()


def _name(log: JobLog) -> str:
    exe = os.path.basename(log.exe.split()[0]) if log.exe.split() else "app"
    name = re.sub(r"[^A-Za-z0-9_.-]", "-", f"{exe}-{log.jobid}").strip("-.")
    return (name or "darshan-job")[:100] if name[:1].isalnum() else f"job-{name}"[:100]


def _hint_files(d: Derived) -> list[str]:
    """The file patterns the hints key on: every file the job moved its main phase's data through MPI-IO in the
    folders of its main files (E3SM writes ``..._h0.nc`` and a smaller ``..._h1.nc``: both get the hints), as one
    ``prefix*`` per folder where the names share a prefix, else the names themselves."""
    folders = sorted({os.path.dirname(f.name) for f in d.matter})

    def moved(f: FileFigures) -> bool:
        return (f.bytes_read if d.main_op == "read" else f.bytes_written) > 0

    data = [f for f in d.files if os.path.dirname(f.name) in folders
            and (f in d.matter or (f.layer == "MPI-IO" and moved(f))
            or (d.pattern["file_mode"] == "fpp" and f.data))]
    out: list[str] = []
    for folder in folders:
        names = sorted({os.path.basename(f.name) for f in data if os.path.dirname(f.name) == folder})
        prefix = os.path.commonprefix(names) if len(names) > 1 else ""  # noqa: RUF071 - a file-name prefix, not a path
        if len(prefix) >= 3:
            out.append(f"{prefix}*")
        elif d.pattern["file_mode"] == "fpp" and len(names) > 1:
            return ["*"]  # files per process with no common prefix: every file
        else:
            out += names
    return sorted(set(out))[:8] or ["*"]


def _comments(log: JobLog, d: Derived, t: Target, settings: dict[str, Any], notes: list[str],
              aggregate: str = "", compared: str = "") -> list[str]:
    lines = [f"Written by `autotune init --from-darshan` from {log.path.name} (job {log.jobid}, {log.nprocs} processes,"
             f" {log.run_time:.0f} s).", f"exe: {log.exe[:160]}", "What the job did (Darshan's figures, files that matter):"]
    for op in ("write", "read"):
        if d.bytes_by_phase[op]:
            size, b = d.sizes.get(op, (0, ""))
            how = ("dominant transfer unknown (no access-size histogram or operation count for this phase)"
                   if not size else f"mean transfer {format_size(size)} (no access-size histogram for this phase)"
                   if b == "mean" else f"dominant transfer {format_size(size)} (histogram bin {b})")
            lines.append(f"  {op}: {d.bytes_by_phase[op]} bytes ({human(d.bytes_by_phase[op])}); {how}")
    lines.append(f"  MPI-IO operations: {d.collective_ops:.0f} collective, {d.independent_ops:.0f} independent")
    for f in d.matter[:10]:
        lines.append(f"  {f.name}: {human(f.bytes_written)} written, {human(f.bytes_read)} read, "
                     f"{'shared by ' + str(f.ranks) + ' ranks' if f.shared else 'one rank'}, {f.library} via {f.layer}, "
                     f"{f.fs_type} {f.mount}" + (f" (as {f.real})" if f.real and f.real != f.name else ""))
    if len(d.matter) > 10:
        lines.append(f"  ... and {len(d.matter) - 10} more file(s)")
    if settings:
        lines.append("  settings it ran with: " + ", ".join(f"{k}={v}" for k, v in settings.items()))
    hinted = sum(f.counters.get("MPIIO_HINTS", 0.0) for f in d.matter)
    if any(f.layer == "MPI-IO" for f in d.matter):
        lines.append(f"  MPI-IO hints: set {hinted:.0f} time(s) (MPIIO_HINTS); Darshan does not record their values"
                     if hinted else "  MPI-IO hints: none set by the job (MPIIO_HINTS is 0)")
    if not d.nodes_recorded:
        lines.append(f"  nodes: not in the log; estimated as ranks / {t.system.cores_per_node} cores per node "
                     f"({t.system.name}); pass --nodes N")
    if compared:
        lines.append(f"measured vs model: {compared}")
    if aggregate:
        lines.append(f"objective.aggregate auto is the {aggregate} of N on this target ({t.fs.name}): best of N on "
                     "shared file systems and burst buffers, median of N elsewhere")
    lines += [f"  note: {n}" for n in notes]
    return ["# " + ln for ln in lines]


def _space(name: str, nodes: int) -> str | dict[str, Any]:
    """The campaign's space: ``local-romio`` searches ``mpiio.cb_nodes`` over powers of two from ROMIO's
    default of one aggregator per node, which is not one when the job's node count is not a power of two:
    then the same range as integers (log scale), the default still one per node."""
    if name != "local-romio" or nodes & (nodes - 1) == 0:
        return name
    return {"use": name, "parameters": {"mpiio.cb_nodes": {"type": "int", "low": 1, "high": "app.ranks", "log": True,
                                                            "default": "app.nodes"}}}


def _searchable(space: BoundSpace, settings: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    """The job's settings the space can hold (its baseline); a note for each it cannot."""
    active = {p.name: p for p in space.active}
    kept: dict[str, Any] = {}
    for k, v in settings.items():
        p = active.get(k)
        if p is not None and p.contains(v):
            kept[k] = v
        else:
            notes.append(f"the job's {k}={format_size(v) if k == 'lustre.stripe_size' else v} is outside the searched "
                         f"range ({p.describe() if p is not None else 'not searched here'}): not used as the baseline")
    return kept


def campaign_from_log(log_path: str | Path, system: str | None = None, nodes: int | None = None,
                      command: list[str] | None = None, model: bool = False, name: str | None = None,
                      trials: int = 30) -> CampaignFromLog:
    """Read the log, derive the pattern, choose the target, write the campaign text and diagnose it."""
    from autotune.campaign import baseline_config, parse_campaign, unreachable

    log = read_log(log_path)
    d = derive(log, nodes, known_paths(system))
    campaign_name = name or _name(log)
    site_file = re.sub(r"[^A-Za-z0-9_.-]", "-", campaign_name).strip("-.")[:100] or "darshan-job"
    t = choose_target(log, d, system, f"{site_file}-site.yaml", nodes)
    settings, notes = job_settings(log, d, t)
    notes = t.notes + notes + [f"not read (PyDarshan failed): {m}" for m in log.skipped]
    if log.partial:
        notes.append(f"incomplete in the log (partial flag): {', '.join(log.partial)}")
    if log.unread:
        notes.append(f"libdarshan-util could not read all of the log: {log.unread}")
    cmd = list(command) if command else _argv(log.exe)
    placeholder = not cmd
    if placeholder:
        cmd = ["./app"]
        notes.append("the log records no executable: replace app.command (its output under {data_dir})")
    cmd = _outputs(cmd, d, preset_for(cmd), str(log.path), notes, drafted=command is None and not placeholder,
                   model=model)
    preset = preset_for(cmd)
    op = d.main_op
    metric_name = f"{op}_bandwidth_mib_s"
    app: dict[str, Any] = {"name": _name(log).split("-")[0] or "app", "command": cmd, "ranks": log.nprocs,
                           "nodes": min(log.nprocs, max(1, nodes or -(-log.nprocs // t.system.cores_per_node))),
                           "hint_files": _hint_files(d), "pattern": d.pattern}
    if model:
        app["metric"] = {"extractor": "json"}
    elif preset is not None:
        app["metric"] = {"extractor": preset}
        if preset == "mdtest":
            metric_name = "file_creation_ops_per_sec"
    else:
        app["env"] = {LOG_ENV: LOG_FILE}
        app["metric"] = {"extractor": "darshan", "logs": "{run_dir}/*.darshan"}
    data: dict[str, Any] = {
        "name": campaign_name,
        "description": f"from Darshan log {log.path.name}: {', '.join(d.pattern['phases'])} "
                       f"{d.pattern['file_mode']} {d.pattern['library']} {d.pattern['io_mode']}",
        "app": app,
        "system": t.system_ref,
        "target": "model" if model else {"filesystem": t.fs.name},
        "space": _space(t.space, app["nodes"]),
    }
    if not model:
        where, why = data_path(d, t, str(Path.cwd() / "autotune-runs" / campaign_name))
        if where:
            data["target"]["path"] = where
        notes += [why] if why else []
    data["objective"] = {"metric": metric_name, "direction": "maximize", "repeats": 3, "aggregate": "auto"}
    data["budget"] = {"trials": trials, "run_timeout": "1h"}
    if t.draft is not None:
        notes.append(f"check before trusting {t.draft.filename}: {t.draft.check}")
    with tempfile.TemporaryDirectory() as tmp:   # the draft profile beside the campaign, as the CLI writes them
        if t.draft is not None:
            (Path(tmp) / t.draft.filename).write_text(t.draft.text)
        plain = parse_campaign(copy.deepcopy(data), Path(tmp))
        bound = plain.space.bind(plain.system, plain.fs, plain.app.pattern)
        active = {p.name for p in bound.active}   # only what this target would search is worth a word
        blocked = {} if model else {k: v for k, v in unreachable(plain.app, plain.space).items() if k in active}
        if blocked:
            bound = plain.space.customise(exclude=sorted(blocked)).bind(plain.system, plain.fs, plain.app.pattern)
        notes += list(blocked.values())
        kept = _searchable(bound, settings, notes)
        if kept:
            data = {**{k: v for k, v in data.items() if k not in ("objective", "budget")},
                    "baseline": {k: (format_size(v) if k == "lustre.stripe_size" else v) for k, v in kept.items()},
                    "objective": data["objective"], "budget": data["budget"]}
        job = baseline_config(bound, kept) or bound.default_config()
        compared = measured_and_predicted(d, bound, job, bool(kept))
        head = _comments(log, d, t, settings, notes, plain.objective.aggregate, compared)
        text = "\n".join(head) + "\n" + yaml.safe_dump(data, sort_keys=False, width=120)
        parse_campaign(yaml.safe_load(text), Path(tmp), text=text)   # the text loads as written
    findings = diagnose(d, log.nprocs, bound, job, f"{op}_bandwidth_mib_s", log)
    return CampaignFromLog(log, d, t, settings, text, notes, findings, missing(log), compared)


def _outputs(cmd: list[str], d: Derived, preset: str | None, log_path: str, notes: list[str], drafted: bool,
             model: bool) -> list[str]:
    """``cmd`` with its output arguments under ``{data_dir}`` (``_output.move_outputs``); a drafted command
    whose output no argument names, or that updates a file in place, stops here (unless the campaign runs on
    the model)."""
    moved = move_outputs(cmd, d, preset)
    if moved.moved:
        notes.append("moved under {data_dir} (the job's own output is never written): "
                     + ", ".join(f"{a} -> {b}" for a, b in moved.moved))
    if moved.in_place and not model:
        if drafted:
            refuse_in_place(log_path, cmd, moved.in_place)
        notes.append(f"the job read {moved.in_place[0]} and then wrote it: make sure app.command works on a copy "
                     f"under {DATA}, not on that file")
    if moved.unnamed and not model:
        if drafted:
            refuse_unnamed(log_path, cmd, moved.unnamed)
        if not any(DATA in c for c in moved.command):
            notes.append(f"app.command names no {DATA}: the job wrote {moved.unnamed[0]}; make sure the trials "
                         "do not write over it")
    return moved.command

"""``init --from-darshan``: a campaign file whose ``app.pattern`` is what the logged job did."""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from autotune.darshan._diagnose import Finding, diagnose
from autotune.darshan._log import JobLog, read_log
from autotune.darshan._pattern import Derived, derive
from autotune.darshan._target import Target, choose_target, job_settings
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
class Init:
    """What ``init`` found and wrote."""

    log: JobLog
    derived: Derived
    target: Target
    settings: dict[str, Any]
    text: str
    notes: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)


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
    names = [os.path.basename(f.name) for f in d.matter]
    if d.pattern["file_mode"] == "fpp" and len(names) > 1:
        folder = os.path.dirname(d.matter[0].name)
        names = [os.path.basename(f.name) for f in d.files if os.path.dirname(f.name) == folder]
        prefix = os.path.commonprefix(names)  # noqa: RUF071 - a file-name prefix, not a path
        return [f"{prefix}*"] if prefix else ["*"]
    return sorted(set(names))[:8] or ["*"]


def _comments(log: JobLog, d: Derived, t: Target, settings: dict[str, Any], notes: list[str]) -> list[str]:
    lines = [f"Written by `autotune init --from-darshan` from {log.path.name} (job {log.jobid}, {log.nprocs} processes,"
             f" {log.run_time:.0f} s).", f"exe: {log.exe[:160]}", "What the job did (Darshan's figures, files that matter):"]
    for op in ("write", "read"):
        if d.bytes_by_phase[op]:
            size, b = d.sizes.get(op, (0, ""))
            lines.append(f"  {op}: {d.bytes_by_phase[op]} bytes ({human(d.bytes_by_phase[op])}); "
                         f"dominant transfer {format_size(size)} (histogram bin {b})")
    lines.append(f"  MPI-IO operations: {d.collective_ops:.0f} collective, {d.independent_ops:.0f} independent")
    for f in d.matter[:10]:
        lines.append(f"  {f.name}: {human(f.bytes_written)} written, {human(f.bytes_read)} read, "
                     f"{'shared by ' + str(f.ranks) + ' ranks' if f.shared else 'one rank'}, {f.library} via {f.layer}, "
                     f"{f.fs_type} {f.mount}")
    if len(d.matter) > 10:
        lines.append(f"  ... and {len(d.matter) - 10} more file(s)")
    if settings:
        lines.append("  settings it ran with: " + ", ".join(f"{k}={v}" for k, v in settings.items()))
    if not d.nodes_recorded:
        lines.append(f"  nodes: not in the log; estimated as ranks / {t.system.cores_per_node} cores per node "
                     f"({t.system.name}); pass --nodes N")
    lines += [f"  note: {n}" for n in notes]
    return ["# " + ln for ln in lines]


def build(log_path: str | Path, system: str | None = None, nodes: int | None = None,
          command: list[str] | None = None, model: bool = False, name: str | None = None,
          trials: int = 30) -> Init:
    """Read the log, derive the pattern, choose the target, write the campaign text and diagnose it."""
    from autotune.campaign import parse_campaign
    from autotune.campaign._baseline import baseline_config

    log = read_log(log_path)
    d = derive(log, nodes)
    t = choose_target(log, d, system)
    settings, notes = job_settings(log, d, t)
    notes = t.notes + notes + [f"not read (PyDarshan failed): {m}" for m in log.skipped]
    cmd = list(command) if command else _argv(log.exe)
    if not cmd:
        cmd = ["./app"]
        notes.append("the log records no executable: replace app.command")
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
        "name": name or _name(log),
        "description": f"from Darshan log {log.path.name}: {', '.join(d.pattern['phases'])} "
                       f"{d.pattern['file_mode']} {d.pattern['library']} {d.pattern['io_mode']}",
        "app": app,
        "system": t.system_ref,
        "target": "model" if model else {"filesystem": t.fs.name},
        "space": t.space,
    }
    if settings:
        data["baseline"] = {k: (format_size(v) if k == "lustre.stripe_size" else v) for k, v in settings.items()}
    data["objective"] = {"metric": metric_name, "direction": "maximize", "repeats": 3, "aggregate": "auto"}
    data["budget"] = {"trials": trials, "run_timeout": "1h"}
    text = "\n".join(_comments(log, d, t, settings, notes)) + "\n" + yaml.safe_dump(data, sort_keys=False, width=120)
    campaign = parse_campaign(yaml.safe_load(text), Path.cwd(), text=text)
    space = campaign.space.bind(campaign.system, campaign.fs, campaign.app.pattern)
    job = baseline_config(space, campaign.baseline) or space.default_config()
    findings = diagnose(d, log.nprocs, space, job, f"{op}_bandwidth_mib_s", log)
    return Init(log, d, t, settings, text, notes, findings)

"""A DataWarp persistent reservation for a campaign (KAUST Shaheen II training, "Create persistent DW space"):

- a set-up job ``#BB create_persistent name=... capacity=... access=striped type=scratch`` (unless the
  reservation exists already: ``create: false``);
- every trial job ``#DW persistentdw name=...``, its data under ``$DW_PERSISTENT_STRIPED_<name>``;
- a tear-down job ``#BB destroy_persistent name=...`` at the end (unless ``keep``).

``target.bb.persistent`` in a campaign (``parse_persistent``); what was done is kept in
``<workdir>/bb-persistent.json`` so that a resumed campaign finds its reservation instead of creating
it twice. On a machine without DataWarp the ``#BB`` lines are comments; the launcher's
``dw_job_striped`` stand-in directory is created by the set-up job and removed by the tear-down job.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autotune._safefile import replace_file
from autotune._yaml import check_keys, expect
from autotune.errors import AutotuneError, ConfigError
from autotune.launch import _slurmctl as ctl
from autotune.launch._jobscript import _SAFE_PATH, JobTemplate, safe_word, slurm_time
from autotune.systems import FileSystem, SystemProfile, dw_capacity
from autotune.tiers import DATAWARP
from autotune.units import parse_size

KEYS = frozenset({"name", "create", "keep", "capacity", "pool"})
STATE_FILE = "bb-persistent.json"
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,62}$")  # it ends an environment variable's name
_TEMPLATE = "#!/bin/bash\n@{sbatch}\n@{bb}\n# autotune: @{what} (rendered by autotune.launch._persistent)\nset -u\n@{body}\n"


@dataclass(frozen=True)
class Persistent:
    """A persistent reservation: its name, whether the campaign creates it and keeps it, its size."""

    name: str
    create: bool
    keep: bool
    grains: int
    capacity: str  # as written in "#BB create_persistent capacity=..."
    pool: str
    pool_given: bool = False

    @property
    def variable(self) -> str:
        return f"DW_PERSISTENT_STRIPED_{self.name}"


def parse_persistent(data: Any, fs: FileSystem, written_bytes: int, where: str = "target.bb.persistent") -> Persistent:
    """``{name, create (true), keep (false when created, true when it existed), capacity, pool}``, checked."""
    if fs.tier is not DATAWARP:
        raise ConfigError(f"{where}: a persistent reservation needs a DataWarp target ({fs.name!r} is {fs.kind})")
    d = check_keys(data, KEYS, where, required=("name",))
    name = str(expect(d["name"], str, f"{where}.name", "a name"))
    if not _NAME.match(name):
        raise ConfigError(f"{where}.name: {name!r} must be a letter then letters, digits or '_' (it ends "
                          "$DW_PERSISTENT_STRIPED_<name>)")
    create = expect(d.get("create", True), bool, f"{where}.create", "true or false")
    keep = expect(d.get("keep", not create), bool, f"{where}.keep", "true or false")
    pool = fs.pool(str(d["pool"]) if "pool" in d else None)
    size = parse_size(d["capacity"], f"{where}.capacity") if "capacity" in d else written_bytes
    grains = max(1, -(-size // pool.granularity))  # DataWarp rounds a request up to whole grains
    if size < written_bytes:
        raise ConfigError(f"{where}.capacity: {size / 1e9:.1f} GB is below the {written_bytes / 1e9:.1f} GB the pattern writes")
    return Persistent(name, bool(create), bool(keep), grains, dw_capacity(grains, pool)[1], pool.name, "pool" in d)


def fixed_parameters(p: Persistent) -> dict[str, Any]:
    """What the reservation fixes for every trial: its grains, pool and (striped) access mode."""
    return {"bb.nodes": p.grains, "bb.pool": p.pool, "bb.access_mode": "striped"}


def bb_line(p: Persistent, action: str) -> str:
    if action == "create":
        return (f"#BB create_persistent name={p.name} capacity={p.capacity} access=striped type=scratch"
                + (f" pool={p.pool}" if p.pool_given else ""))
    return f"#BB destroy_persistent name={p.name}"


def script(p: Persistent, action: str, campaign: str, system: SystemProfile, options: Mapping[str, Any],
           log_dir: Path) -> str:
    """The set-up (``create``) or tear-down (``destroy``) job: one node, one minute, the #BB line."""
    sched = {**system.scheduler, **{k: v for k, v in options.items() if v is not None}}
    sbatch = [f"#SBATCH --job-name={job_name(campaign, action)}", "#SBATCH --nodes=1", "#SBATCH --ntasks=1",
              f"#SBATCH --time={slurm_time(60)}"]
    sbatch += [f"#SBATCH --{k}={safe_word(sched[k], k)}" for k in ("account", "partition", "qos", "constraint")
               if sched.get(k)]
    if _SAFE_PATH.match(str(log_dir)):
        sbatch += [f"#SBATCH --output={log_dir}/slurm-%j.out", f"#SBATCH --error={log_dir}/slurm-%j.err"]
    body = []
    if options.get("dw_job_striped"):  # no DataWarp here: the stand-in directory is the reservation
        local = safe_word(options["dw_job_striped"], "dw_job_striped", _SAFE_PATH)
        body.append(f'mkdir -p -- "{local}"' if action == "create" else f'rm -rf -- "{local}"')
    done = {"create": "created", "destroy": "destroyed"}[action]
    body.append(f"echo 'autotune: persistent reservation {p.name}: {done}'")
    what = f"{action} the persistent DataWarp reservation {p.name} for campaign {campaign}"
    return JobTemplate(_TEMPLATE).safe_substitute({"sbatch": "\n".join(sbatch), "bb": bb_line(p, action),
                                                   "what": what, "body": "\n".join(body)})


def job_name(campaign: str, action: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", f"autotune-{campaign}-bb-{action}")[:64]


def _load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _submit(text: str, job_dir: Path, name: str, options: Mapping[str, Any]) -> str:
    """Write and submit one set-up/tear-down job; its id."""
    job_dir.mkdir(parents=True, exist_ok=True)
    path = job_dir / f"{name}.sh"
    replace_file(path, text, mode=0o750)
    extra = [x for x in (options.get("sbatch_args") or []) if isinstance(x, str)]
    try:
        return ctl.submit(path, [f"--chdir={job_dir}", *extra])
    except ctl.SlurmError as exc:
        raise AutotuneError(f"target.bb.persistent: the {name} job failed: {exc}") from None


def _wait(job_id: str, job_dir: Path, name: str, options: Mapping[str, Any]) -> str:
    """Wait for a set-up/tear-down job; its id, or AutotuneError when it did not complete."""
    try:
        info, _ = ctl.wait(job_id, 300.0, float(options.get("grace", 30.0)), float(options.get("poll_interval", 0.5)))
    except ctl.SlurmError as exc:
        raise AutotuneError(f"target.bb.persistent: the {name} job {job_id} failed: {exc}") from None
    if info.state != "COMPLETED":
        raise AutotuneError(f"target.bb.persistent: the {name} job {job_id} ended {info.state}"
                            + (f" ({info.reason})" if info.reason else "") + f"; its log is in {job_dir}")
    return job_id


def _save(path: Path, **state: Any) -> None:
    replace_file(path, json.dumps({**state, "at": time.time()}))


def set_up(p: Persistent, campaign: str, system: SystemProfile, options: Mapping[str, Any], workdir: Path) -> str:
    """Create the reservation once (a resumed campaign finds it in the state file, or waits for the create
    job an interrupted attempt submitted); one line for the log."""
    state_path = workdir / STATE_FILE
    state = _load(state_path)
    mine = state.get("name") == p.name
    if mine and state.get("state") == "created":
        return f"persistent reservation {p.name}: in place (created by job {state.get('create_job')})"
    if not p.create:
        return f"persistent reservation {p.name}: named as existing (not created)"
    job_dir = workdir / "bb-persistent"
    if mine and state.get("state") == "creating" and state.get("create_job"):
        job_id = str(state["create_job"])  # submitted by an interrupted attempt: wait for it, never submit twice
    else:
        job_id = _submit(script(p, "create", campaign, system, options, job_dir), job_dir, "create", options)
        _save(state_path, name=p.name, state="creating", create_job=job_id)
    _wait(job_id, job_dir, "create", options)
    _save(state_path, name=p.name, state="created", create_job=job_id)
    return f"persistent reservation {p.name}: created ({p.capacity}, job {job_id})"


def tear_down(p: Persistent, campaign: str, system: SystemProfile, options: Mapping[str, Any], workdir: Path) -> str:
    """Destroy the reservation at the end of the campaign unless ``keep``; one line for the log."""
    if p.keep:
        return f"persistent reservation {p.name}: kept (destroy it with a job holding '{bb_line(p, 'destroy')}')"
    state_path = workdir / STATE_FILE
    job_dir = workdir / "bb-persistent"
    job_id = _wait(_submit(script(p, "destroy", campaign, system, options, job_dir), job_dir, "destroy", options),
                   job_dir, "destroy", options)
    state = {k: v for k, v in _load(state_path).items() if k != "at"}
    _save(state_path, **{**state, "name": p.name, "state": "destroyed", "destroy_job": job_id})
    return f"persistent reservation {p.name}: destroyed (job {job_id})"


__all__ = ["KEYS", "Persistent", "bb_line", "fixed_parameters", "parse_persistent", "script", "set_up", "tear_down"]

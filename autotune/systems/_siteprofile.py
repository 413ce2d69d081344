"""A system profile for this machine from detection and the probe, every value marked in a comment:
``measured`` (timed here by the probe), ``detected`` (read from this host), ``assumed`` (not known here)."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from autotune.systems._probe import Measured, ProbeResult, ProbeSetup, probe
from autotune.systems.detect import Detection, FileSystemInfo, _run, detect_filesystem, detect_stack
from autotune.tiers import DATAWARP, LUSTRE, POSIX, TIERS

_COMMENT_AT = 36


@dataclass(frozen=True)
class ProbedFolder:
    """A probed folder: its file system, what the probe measured there, and the OST count when it is Lustre."""

    folder: Path
    filesystem: FileSystemInfo
    measured: Sequence[Measured] = ()
    osts: int | None = None


def _yaml_string(text: str) -> str:
    """A YAML scalar that reads back as ``text`` (JSON strings are YAML; control characters escaped)."""
    return json.dumps(text)


def _line(indent: int, key: str, value: str, comment: str) -> str:
    head = f"{' ' * indent}{key}: {value}"
    return f"{head.ljust(_COMMENT_AT)} # {' '.join(comment.split())}"


def _number(value: float) -> str:
    """Four significant digits in a form YAML reads as a float (mantissa with a dot, signed exponent)."""
    return f"{value:.3e}"


def fs_name(folder: Path, taken: set[str]) -> str:
    """A short file system name from the folder's last component (``scratch``, ``work``), unique in ``taken``."""
    base = re.sub(r"[^a-z0-9]+", "_", folder.name.lower()).strip("_") or "root"
    name, k = base, 2
    while name in taken:
        name, k = f"{base}{k}", k + 1
    taken.add(name)
    return name


def _filesystem(name: str, t: ProbedFolder) -> list[str]:
    fs = t.filesystem
    where = f"{fs.fstype} mounted at {fs.mount_point or '?'} ({fs.source})"
    tier, note = TIERS.get(fs.kind), ""
    if tier is LUSTRE and t.osts is None:
        tier, note = POSIX, "Lustre without `lfs df` here: modelled as POSIX (assumed)"
    elif tier is DATAWARP:
        tier, note = POSIX, "DataWarp's pools are not visible to a probe: modelled as POSIX (assumed)"
    kind = tier.name
    lines = [f"  {name}:", _line(4, "kind", kind, f"detected: {where}" + (f"; {note}" if note else "")),
             _line(4, "path", _yaml_string(str(t.folder)), "detected: the probed folder"),
             _line(4, "description", _yaml_string(f"{fs.fstype} at {fs.mount_point}"), "detected")]
    if tier is LUSTRE and t.osts is not None:
        lines.append(_line(4, "osts", str(t.osts), "detected: lfs df"))
    if t.measured:
        lines.append("    model:")
        lines += [_line(6, m.constant, _number(m.value), f"measured: {m.how}") for m in t.measured]
    return lines


def site_profile_yaml(name: str, detection: Detection, probe: ProbeResult, targets: Sequence[ProbedFolder],
                      header: Sequence[str] = ()) -> str:
    """The profile's YAML text (``parse_system`` reads it back; the marks are comments)."""
    if not targets:
        raise ValueError("a site profile needs at least one file system")
    lines = [f"# {h}" for h in header]
    lines += ["# Marks: measured = timed here by the probe; detected = read from this host;",
              "# assumed = not known here (the model's defaults: docs/model.md)."]
    mpi = detection.mpi
    if mpi is not None and mpi.flavour is not None:
        flavour, mark = mpi.flavour, f"detected: {mpi.library.describe()}, MPI-IO {mpi.io_component or '?'}"
    else:
        why = "not asked" if mpi is None else (mpi.error or f"unknown library {mpi.library.summary!r}")
        flavour, mark = "mpich", f"assumed: the MPI could not be told ({why})"
    lines += [f"name: {_yaml_string(name)}",
              f"description: {_yaml_string(f'written by autotune site profile: {len(targets)} file system(s), ' + flavour)}",
              "mpi:", _line(2, "flavour", flavour, mark),
              "node:", _line(2, "cores", str(int(detection.cores.value)), f"detected: {detection.cores.source}"),
              "filesystems:"]
    taken: set[str] = set()
    names = [fs_name(t.folder, taken) for t in targets]
    for n, t in zip(names, targets, strict=True):
        lines += _filesystem(n, t)
    lines.append(f"default_filesystem: {names[0]}")
    if probe.system:
        lines.append("model:")
        lines += [_line(2, m.constant, _number(m.value), f"measured: {m.how}") for m in probe.system]
    lines.append("# assumed: every other model constant (the model's defaults)")
    lines += [f"# not measured: {' '.join(s.split())}" for s in probe.skipped]
    return "\n".join(lines) + "\n"


def parse_lfs_df(text: str) -> int | None:
    """The OST count in ``lfs df PATH``'s output (its ``[OST:n]`` lines), None when there is none."""
    osts = {m.group(1) for m in re.finditer(r"\[OST:(\d+)\]", text)}
    return len(osts) or None


def _osts(folder: Path) -> int | None:
    lfs = shutil.which("lfs")
    if lfs is None:
        return None
    try:
        code, out, _ = _run([lfs, "df", str(folder)], os.environ, 20.0)
    except (OSError, TimeoutError):
        return None
    return parse_lfs_df(out) if code == 0 else None


def profile_site(name: str, folders: Sequence[Path], setup: ProbeSetup, *, budget: float = 60.0, mpi: bool = True,
                 header: Sequence[str] = (), say: Callable[[str], None] | None = None) -> tuple[str, Detection]:
    """Detect this host, probe it (the first folder gets the MPI and page-cache steps, every folder its
    write-back; about ``budget`` seconds in all) and return the profile's YAML text and the detection."""
    if not folders:
        raise ValueError("profile_site needs at least one folder")
    detection = detect_stack(folders[0], mpi=mpi, mpiexec=setup.mpiexec, python=setup.python,
                             mpiexec_args=setup.mpiexec_args, env=setup.env)
    cores = int(detection.cores.value)
    load_before = os.getloadavg()[0]
    share = budget / (1 + 0.25 * (len(folders) - 1))
    first = probe(folders[0], cores, setup, mpi=mpi and detection.mpi is not None and not detection.mpi.error,
                  budget=share, say=say, load=load_before)
    if detection.mpi is not None and detection.mpi.error:
        first.skipped.insert(0, f"MPI steps: {detection.mpi.error}")
    targets = [ProbedFolder(folders[0], detection.filesystem or _unknown(folders[0]), first.filesystem, _osts(folders[0]))]
    for folder in folders[1:]:
        more = probe(folder, cores, setup, budget=0.25 * share, say=say, writeback_only=True)
        first.skipped += more.skipped
        targets.append(ProbedFolder(folder, detect_filesystem(folder) or _unknown(folder), more.filesystem, _osts(folder)))
    load = f"{load_before:.2g} -> {os.getloadavg()[0]:.2g}"
    note = [f"the node's load average during the probe: {load} on {cores} cores; each figure is the best of its"
            " repetitions (the least disturbed)"]
    return site_profile_yaml(name, detection, first, targets, [*header, *note]), detection


def _unknown(folder: Path) -> FileSystemInfo:
    return FileSystemInfo(str(folder), "unknown", POSIX.name, "", False, "neither mountinfo nor statfs answered")

"""What ``autotune site detect`` and ``site profile`` say and write: the detection's lines, the profile written
atomically after it reads back as a profile, the busy-node warning, the count of measured/detected/assumed values."""

from __future__ import annotations

import datetime
import os
import socket
from collections.abc import Callable, Sequence
from pathlib import Path

from autotune._yaml import parse_yaml
from autotune.systems._probe import ProbeSetup
from autotune.systems._profile import parse_system
from autotune.systems._siteprofile import profile_site
from autotune.systems.detect import Detection

MARK_NAMES = ("measured", "detected", "assumed")


def detection_lines(found: Detection) -> list[str]:
    """``site detect``'s lines: one fact each, with its mark and source."""
    lines = [f"cores         {found.cores.value}  ({found.cores.mark}: {found.cores.source})"]
    fs = found.filesystem
    if fs is None:
        lines.append("file system   unknown  (neither /proc/self/mountinfo nor statfs answered)")
    else:
        scope = "shared" if fs.network else "node-local"
        lines.append(f"file system   {fs.fstype} at {fs.mount_point or '?'}: profile kind {fs.kind}, {scope}  "
                     f"(detected: {fs.source}; {fs.path})")
    mpi = found.mpi
    if mpi is None:
        lines.append("MPI           not asked (--no-mpi)")
    elif mpi.error:
        lines.append(f"MPI           unknown  ({mpi.error})")
    else:
        flavour = mpi.flavour or "unknown"
        lines.append(f"MPI           {mpi.library.describe()}: profile flavour {flavour}  "
                     f"(detected: MPI_Get_library_version through {mpi.mpiexec})")
        lines.append(f"MPI-IO        {mpi.io_component or 'unknown'}  (detected: {mpi.io_reason})")
    have = [n for n, p in found.tools.items() if p]
    lacking = [n for n, p in found.tools.items() if not p]
    lines.append(f"tools         {' '.join(have) or 'none'}" + (f"  (absent: {' '.join(lacking)})" if lacking else ""))
    return lines


def write_profile(out: Path, name: str, folders: Sequence[Path], setup: ProbeSetup, *, budget: float, mpi: bool,
                  say: Callable[[str], None], warn: Callable[[str], None]) -> list[str]:
    """Detect and probe this host (``profile_site``: progress through ``say``) and write its profile to ``out``
    (``save_profile``); return the lines that report it."""
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    header = [f"written by `autotune site profile` on {socket.gethostname()} at {now}",
              "run it where the jobs run (a compute node, inside an allocation) for that node's cores and MPI"]
    busy = os.getloadavg()[0]
    text, found = profile_site(name, folders, setup, budget=budget, mpi=mpi, header=header, say=say)
    return save_profile(out, text, found, load=max(busy, os.getloadavg()[0]), warn=warn)


def save_profile(out: Path, text: str, found: Detection, *, load: float, warn: Callable[[str], None]) -> list[str]:
    """Write the profile ``text`` to ``out`` once it reads back as a profile (through a temporary file, so a
    reader never sees half of it); ``warn`` when the ``load`` average during the probe exceeded the cores.
    Returns the detection's lines and the count of measured, detected and assumed values."""
    if load > int(found.cores.value):
        warn(f"the node was busy during the probe (load average {load:.3g} on {found.cores.value} cores): its "
             "figures are the least disturbed repetitions, still a busy node's; probe again on an idle node for the "
             "site's own")
    parse_system(parse_yaml(text, str(out)), str(out))  # what is written reads back as a profile
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
    marks = {m: sum(f"# {m}:" in line for line in text.splitlines()) for m in MARK_NAMES}
    return [*detection_lines(found),
            f"wrote {out}: {marks['measured']} measured, {marks['detected']} detected, {marks['assumed']} assumed "
            f"value(s); use it as `system: {out}` in a campaign"]

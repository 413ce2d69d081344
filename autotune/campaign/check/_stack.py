"""The campaign's system profile against the stack detected here (``autotune.systems.detect``), at the start of
``check``, ``tune`` and ``ask``: one line per contradiction with both values, an error where the results would be
wrong (hints the detected MPI-IO ignores: ROMIO's under Open MPI's OMPIO, Cray's under a non-Cray MPICH).

What is compared depends on where the runs happen: the ``local`` launcher runs here (MPI, file system, cores);
Slurm's runs happen on compute nodes that share the target's file system (the file system only); the ``model``
and ``replay`` launchers run nothing (no detection at all).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

from autotune.campaign.file import Campaign
from autotune.errors import ConfigError
from autotune.space import CATALOGUE, BoundSpace
from autotune.systems import MpiStack, detect_cores, detect_filesystem, detect_mpi
from autotune.systems.detect import MPI_TIMEOUT_S
from autotune.tiers import TIERS

_SHARED_FS_LAUNCHERS = frozenset({"slurm", "slurm-step"})
_COMPARABLE_KINDS = frozenset(n for n in TIERS if TIERS.get(n).probed)  # near-node tiers are mounted per job: not here
# parameters that choose Open MPI's io component (a space that searches one can hold ROMIO hints legitimately)
_IO_SELECTORS = frozenset({"ompi.io", "ompi.io_component", "mpiio.io_component"})


@dataclass(frozen=True)
class StackReport:
    """The lines to print (contradictions and what could not be detected)."""

    lines: tuple[str, ...]


def _hint_keys(space: BoundSpace) -> dict[str, str]:
    """Parameter -> MPI-IO hint key for every parameter the campaign searches or fixes."""
    names = [p.name for p in space.active] + list(space.fixed)
    return {n: k for n in names if (k := CATALOGUE[n].mpi_info if n in CATALOGUE else None) is not None}


def ignored_hints(keys: dict[str, str], stack: MpiStack) -> list[str]:
    """The parameters whose hints the detected MPI-IO ignores: ROMIO-only ones (``romio_*``, ``cb_config_list``)
    under OMPIO, Cray's (``cray_*``) anywhere but Cray MPICH."""
    out = []
    for name, key in keys.items():
        romio_only = key.startswith("romio_") or key == "cb_config_list"
        if romio_only and stack.uses_romio is False:
            out.append(name)
        elif key.startswith("cray_") and stack.library.library not in ("cray-mpich", "unknown"):
            out.append(name)
    return out


def _selects_io(names: Iterable[str]) -> bool:
    return any(n in _IO_SELECTORS for n in names)


def check_stack(c: Campaign, space: BoundSpace, *, timeout: float | None = None, strict: bool = True) -> StackReport:
    """Compare ``c``'s system profile with this host; raise ``ConfigError`` where the results would be wrong.

    ``strict=False`` reports ignored hints as a line (``check`` and ``tune --dry-run`` refuse like ``tune``)
    instead: the run then shows them verified not in effect."""
    if strict and not space.active and c.system.mpi_flavour == "openmpi":
        source = f" ({c.system.mpi_source})" if c.system.mpi_source else ""
        why = "; ".join(n.split(":")[0] for n in space.notices) or "none of its parameters acts"
        raise ConfigError(f"space {c.space.name!r} searches nothing under Open MPI{source}: left out: {why} "
                          f"(`autotune space` says why); fix: `space: local-openmpi` searches Open MPI's own knobs")
    launcher = str(c.launcher.get("name", "local"))
    if launcher != "local" and launcher not in _SHARED_FS_LAUNCHERS:
        return StackReport(())
    lines: list[str] = []
    fs = detect_filesystem(c.data_root)
    if fs is not None and c.fs.kind in _COMPARABLE_KINDS and fs.kind != c.fs.kind:
        lines.append(f"file system: system {c.system.name!r} says {c.fs.name!r} is {c.fs.kind}; detected "
                     f"{fs.fstype} ({fs.kind}) at {fs.path}")
    if launcher != "local":
        return StackReport(tuple(lines))
    if not c.system.cores_source:
        cores = detect_cores()
        if int(cores.value) != c.system.cores_per_node:
            lines.append(f"cores: system {c.system.name!r} says {c.system.cores_per_node} per node; detected "
                         f"{cores.value} here ({cores.source})")
    if not (c.app.mpiexec or c.app.kernel is not None):
        return StackReport(tuple(lines))
    env = {**os.environ, **{str(k): str(v) for k, v in dict(c.app.env).items()}}
    args, mpiexec, python = (c.launcher.get(k) for k in ("mpiexec_args", "mpiexec", "python"))
    stack = detect_mpi(mpiexec if isinstance(mpiexec, str) else "mpiexec", python if isinstance(python, str) else None,
                       [str(a) for a in args] if isinstance(args, list) else [], env,
                       timeout=timeout or MPI_TIMEOUT_S, fs_type=fs.fstype if fs else "", command=c.app.kernel is None)
    if stack.error:
        lines.append(f"MPI: not detected ({stack.error}); system {c.system.name!r} says {c.system.mpi_flavour}")
        return StackReport(tuple(lines))
    if stack.flavour is not None and stack.flavour != c.system.mpi_flavour:
        lines.append(f"MPI: system {c.system.name!r} says {c.system.mpi_flavour}; detected "
                     f"{stack.library.describe()} (MPI-IO {stack.io_component or 'unknown'})")
    keys = _hint_keys(space)
    wrong = [] if _selects_io([p.name for p in space.active] + list(space.fixed)) else ignored_hints(keys, stack)
    if wrong:
        io = stack.io_component or stack.library.library
        fix = (" (fix: `space: local-openmpi` searches Open MPI's own knobs; or ROMIO serves files with --mca io "
               "romio321 in launcher.mpiexec_args or OMPI_MCA_io=romio321 in app.env; or leave these out of the "
               "space)") if stack.uses_romio is False else ""
        message = (f"{', '.join(wrong)}: hints that {stack.library.describe()} with MPI-IO {io} ignores "
                   f"(detected here: {stack.io_reason}); tuning them would measure nothing{fix}")
        if strict:
            raise ConfigError(message)
        lines.append(message)
    return StackReport(tuple(lines))

"""Settings -> each dialect users paste into a job script: MPICH_MPIIO_HINTS, ROMIO hints file,
``lfs setstripe``, ``#DW`` lines, h5py/HDF5 settings, environment, JSON."""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from typing import Any

from autotune._registry import NOT_ONE_OF, Registry
from autotune.errors import ConfigError
from autotune.hints._settings import Settings
from autotune.units import lfs_size

# The export dialects (``autotune export --format``), each with what it is; ``render`` writes them.
DIALECTS: Registry[str] = Registry("dialect", "--format", NOT_ONE_OF)
for _name, _what in (("mpich", "export MPICH_MPIIO_HINTS=... (Cray MPICH)"), ("romio", "a ROMIO_HINTS file"),
                     ("lfs", "lfs setstripe"), ("dw", "#DW jobdw lines"), ("h5py", "an h5py.File snippet"),
                     ("env", "shell lines for the system's MPI"), ("json", "everything as JSON")):
    DIALECTS.register(_name, _what)
FORMATS = tuple(DIALECTS.names())


def mpich_mpiio_hints(info: dict[str, str], patterns: Sequence[str] = ("*",)) -> str:
    """Cray's ``MPICH_MPIIO_HINTS`` value: ``pattern:key=value:key=value[,pattern2:...]``."""
    if not info:
        return ""
    for key, value in info.items():
        if any(c in f"{key}{value}" for c in ",:= \n"):
            raise ConfigError(f"hint {key}={value!r} cannot be written in MPICH_MPIIO_HINTS (contains , : = or space)")
    body = ":".join(f"{k}={v}" for k, v in sorted(info.items()))
    return ",".join(f"{p}:{body}" for p in patterns)


def romio_hints_file(info: dict[str, str]) -> str:
    """A ``ROMIO_HINTS`` file: one ``key value`` per line."""
    return "".join(f"{k} {v}\n" for k, v in sorted(info.items()))


def lfs_setstripe(settings: Settings, path: str = "$OUTPUT_DIR") -> str:
    """``lfs setstripe -c N -S SIZE DIR`` for the striping (empty when the target is not Lustre)."""
    if settings.stripe is None:
        return ""
    quoted = path if path.startswith("$") else shlex.quote(path)
    return f"lfs setstripe -c {settings.stripe.count} -S {lfs_size(settings.stripe.size)} {quoted}"


def dw_lines(settings: Settings, stage_in: str | None = None, stage_out: str | None = None) -> list[str]:
    """``#DW jobdw`` (capacity = BB nodes x granularity) and optional stage-in/stage-out lines."""
    if settings.bb is None:
        return []
    bb = settings.bb
    lines = [f"#DW jobdw type=scratch access_mode=striped capacity={bb.capacity} pool={bb.pool}"]
    if stage_in:
        lines.append(f"#DW stage_in type=directory source={stage_in} destination=$DW_JOB_STRIPED")
    if stage_out:
        lines.append(f"#DW stage_out type=directory source=$DW_JOB_STRIPED destination={stage_out}")
    return lines


def h5py_settings(settings: Settings) -> dict[str, Any]:
    """Keyword arguments for ``h5py.File(..., driver='mpio')`` (info as a dict of hints)."""
    kw: dict[str, Any] = {}
    if settings.hdf5_alignment and settings.hdf5_alignment > 1:
        kw["alignment_threshold"] = settings.hdf5_alignment
        kw["alignment_interval"] = settings.hdf5_alignment
    if settings.info:
        kw["info"] = dict(sorted(settings.info.items()))
    return kw


def h5py_snippet(settings: Settings) -> str:
    kw = h5py_settings(settings)
    lines = ["from mpi4py import MPI", "import h5py", "", "info = MPI.Info.Create()"]
    for k, v in kw.get("info", {}).items():
        lines.append(f"info.Set({k!r}, {v!r})")
    extra = "".join(f", {k}={kw[k]}" for k in ("alignment_threshold", "alignment_interval") if k in kw)
    lines.append(f"f = h5py.File(path, 'w', driver='mpio', comm=MPI.COMM_WORLD, info=info{extra})")
    return "\n".join(lines)


def render(fmt: str, settings: Settings, *, mpi_flavour: str = "cray-mpich", patterns: Sequence[str] = ("*",),
           path: str = "$OUTPUT_DIR", romio_file: str = "romio-hints.txt") -> str:
    """One export format as text (what ``autotune export --format`` prints)."""
    DIALECTS.check(fmt)
    if fmt == "mpich":
        value = mpich_mpiio_hints(settings.info, patterns)
        return f"export MPICH_MPIIO_HINTS={shlex.quote(value)}" if value else "# no MPI-IO hints: keep the defaults"
    if fmt == "romio":
        return romio_hints_file(settings.info) or "# no MPI-IO hints: keep the defaults\n"
    if fmt == "lfs":
        return lfs_setstripe(settings, path) or "# not a Lustre target: no striping"
    if fmt == "dw":
        return "\n".join(dw_lines(settings)) or "# not a DataWarp target: no #DW lines"
    if fmt == "h5py":
        return h5py_snippet(settings)
    if fmt == "env":
        lines = []
        if mpi_flavour == "cray-mpich":
            value = mpich_mpiio_hints(settings.info, patterns)
            if value:
                lines.append(f"export MPICH_MPIIO_HINTS={shlex.quote(value)}")
        elif settings.info:
            lines.append(f"cat > {romio_file} <<'EOF'\n{romio_hints_file(settings.info)}EOF")
            lines.append(f"export ROMIO_HINTS=\"$PWD/{romio_file}\"")
        if settings.stripe:
            lines.append(lfs_setstripe(settings, path))
        return "\n".join(lines) or "# defaults: nothing to set"
    if fmt == "json":
        return json.dumps({
            "config": settings.config, "mpi_info": settings.info,
            "stripe": vars(settings.stripe) if settings.stripe else None,
            "burst_buffer": vars(settings.bb) if settings.bb else None,
            "hdf5_alignment": settings.hdf5_alignment,
        }, indent=2, sort_keys=True)
    raise AssertionError(f"dialect {fmt!r} is registered but not rendered")

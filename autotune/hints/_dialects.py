"""The lines of each dialect users paste into a job script (``autotune.hints.DIALECTS`` renders them):
MPICH_MPIIO_HINTS, ROMIO hints file,
Open MPI's MCA parameters (``OMPI_MCA_*``/``--mca``), ``lfs setstripe``, ``#DW`` lines, h5py/HDF5 settings,
environment, JSON.

Nothing printed here can break out of its line: every key and value is checked for control
characters (a newline would start a new file line or a new shell command) and every word a shell
reads is ``shlex.quote``d, so pasting a snippet runs exactly the one command it shows.
"""

from __future__ import annotations

import math
import re
import shlex
from collections.abc import Sequence
from typing import Any

from autotune._yaml import plain_text
from autotune.errors import ConfigError
from autotune.hints._settings import RABBIT_NAME, Settings
from autotune.tiers import PCC, RABBIT
from autotune.units import lfs_size

_SHELL_VAR = re.compile(r"^\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[A-Za-z_][A-Za-z0-9_]*\})$")
_HINT_KEY = re.compile(r"^[A-Za-z0-9_.-]+$")


def _checked(info: dict[str, str]) -> dict[str, str]:
    """``info`` after checking every key is a plain hint name and every value one line of text."""
    for key, value in info.items():
        if not _HINT_KEY.match(str(key)):
            raise ConfigError(f"hint {key!r}: not a hint name (letters, digits, '_', '.', '-')")
        plain_text(value, f"hint {key}", "a hint value")
    return info


def shell_path(path: str) -> str:
    """``path`` as one shell word: a lone ``$VAR``/``${VAR}`` stays a (double-quoted) variable, anything
    else is single-quoted, so ``$(...)``, backquotes, ``;`` and spaces are never interpreted."""
    plain_text(path, "--path", "a directory")
    return f'"{path}"' if _SHELL_VAR.match(path) else shlex.quote(path)


def var_name(path: str) -> str | None:
    """The variable's name when ``path`` is a lone ``$VAR``/``${VAR}`` (None otherwise)."""
    return path.strip("${}") if _SHELL_VAR.match(path) else None


def in_dir(command: str, path: str, what: str) -> str:
    """``command`` (which ends with ``path``'s shell word) after ``mkdir -p``: ``lfs setstripe`` and ``lfs project``
    on a name that does not exist create a *file* of that name (Lustre Operations Manual, ``lfs setstripe``), so the
    directory is made first. A lone ``$VAR`` path is checked first: under ``set -u`` an unset variable would end the
    job, so the line says on stderr that ``what`` was not applied instead."""
    run = f"mkdir -p {shell_path(path)} && {command}"
    name = var_name(path)
    if name is None:
        return run
    why = shlex.quote(f"autotune: ${name} is not set: {what} not applied (set it to the output directory, "
                      "or give --path DIR)")
    return f'if [ -n "${{{name}:-}}" ]; then {run}; else echo {why} >&2; fi'


def if_lfs(line: str, what: str) -> str:
    """``line`` run only where ``lfs`` exists: a machine without Lustre's client says so instead of failing."""
    return f"if command -v lfs >/dev/null; then {line}; else echo 'autotune: lfs not found: {what} not applied' >&2; fi"


def open_patterns(patterns: Sequence[str]) -> list[str]:
    """File patterns for names as applications pass them to ``MPI_File_open``: Cray MPICH matches a pattern
    against that name with shell wildcards (HPE Cray MPICH ``intro_mpi``, MPICH_MPIIO_HINTS), and the name is
    often a full path, so a bare pattern (``wrfout*``) is given both as it is and as ``*/wrfout*``. A pattern that
    is absolute, starts with a variable (``$DW_JOB_STRIPED/...``) or a wildcard is kept as it is."""
    out: list[str] = []
    for p in patterns:
        for q in ((p,) if p.startswith(("/", "$", "*")) else (p, f"*/{p}")):
            if q not in out:
                out.append(q)
    return out


_LEADING_VAR = re.compile(r"^\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})(?=/|$)")


def shell_value(value: str) -> str:
    """``value`` as one shell word with the leading ``$VAR``/``${VAR}`` of each comma-separated part expanded
    (double-quoted) and everything else single-quoted: ``'$DW_JOB_STRIPED/out*:...'`` would keep the variable
    literal, so the pattern would match no file."""
    words: list[str] = []
    literal = ""
    for i, part in enumerate(value.split(",")):
        literal += "," if i else ""
        m = _LEADING_VAR.match(part)
        if m:
            if literal:
                words.append(shlex.quote(literal))
            words.append(f'"${{{m.group(1) or m.group(2)}}}"')
            literal, part = "", part[m.end():]
        literal += part
    if literal:
        words.append(shlex.quote(literal))
    return "".join(words) or "''"


def mpich_export(info: dict[str, str], patterns: Sequence[str] = ("*",)) -> str:
    """``export MPICH_MPIIO_HINTS=...`` for the names the application opens (``open_patterns``); '' for no hints."""
    value = mpich_mpiio_hints(info, open_patterns(patterns))
    return f"export MPICH_MPIIO_HINTS={shell_value(value)}" if value else ""


def mpich_mpiio_hints(info: dict[str, str], patterns: Sequence[str] = ("*",)) -> str:
    """Cray's ``MPICH_MPIIO_HINTS`` value: ``pattern:key=value:key=value[,pattern2:...]``."""
    if not info:
        return ""
    for p in patterns:  # checked for control characters at load (app.hint_files, --files)
        if any(c in p for c in ",: \n\r"):
            raise ConfigError(f"hint file pattern {p!r} cannot be written in MPICH_MPIIO_HINTS "
                              "(contains , : space or a newline)")
    for key, value in _checked(info).items():
        if any(c in f"{key}{value}" for c in ",:= "):
            raise ConfigError(f"hint {key}={value!r} cannot be written in MPICH_MPIIO_HINTS (contains , : = or space)")
    body = ":".join(f"{k}={v}" for k, v in sorted(info.items()))
    return ",".join(f"{p}:{body}" for p in patterns)


def ompi_mca_lines(mca: dict[str, str]) -> list[str]:
    """``export OMPI_MCA_<key>=<value>`` per Open MPI MCA parameter (Open MPI reads any MCA parameter so)."""
    return [f"export OMPI_MCA_{k}={shlex.quote(v)}" for k, v in sorted(_checked(mca).items())]


def ompi_mca_args(mca: dict[str, str]) -> list[str]:
    """The same parameters as ``mpirun``/``mpiexec`` arguments: ``--mca <key> <value>`` each."""
    return [word for k, v in sorted(_checked(mca).items()) for word in ("--mca", k, v)]


def romio_hints_file(info: dict[str, str]) -> str:
    """A ``ROMIO_HINTS`` file: one ``key value`` per line."""
    return "".join(f"{k} {v}\n" for k, v in sorted(_checked(info).items()))


def lfs_setstripe(settings: Settings, path: str = "$OUTPUT_DIR") -> str:
    """``lfs setstripe -c N -S SIZE DIR`` for the striping (empty when the target is not Lustre)."""
    if settings.stripe is None:
        return ""
    count, size = int(settings.stripe.count), int(settings.stripe.size)
    return f"lfs setstripe -c {count} -S {lfs_size(size)} {shell_path(path)}"


def dw_lines(settings: Settings, stage_in: str | None = None, stage_out: str | None = None) -> list[str]:
    """``#DW jobdw`` (striped: capacity = BB nodes x granularity; private: the grain each compute node gets),
    or ``#DW persistentdw name=...`` on a persistent reservation, and optional stage-in/stage-out lines."""
    if settings.near is not None and settings.near.tier is RABBIT:
        return rabbit_lines(settings, stage_in, stage_out)
    if settings.bb is None:
        return []
    bb = settings.bb
    for text, what in ((bb.pool, "DataWarp pool"), (bb.capacity, "capacity"), (stage_in or "", "stage_in"),
                       (stage_out or "", "stage_out"), (bb.persistent or "", "persistent reservation name")):
        if plain_text(text, what, "one word").split() not in ([text], []):
            raise ConfigError(f"{what}: {text!r} contains a space (a #DW line takes one word per value)")
    if bb.access_mode == "private" and (stage_in or stage_out):
        raise ConfigError("launcher.stage_in/stage_out: DataWarp stages into the striped namespace only "
                          "(bb.access_mode=private has none)")
    if bb.persistent:
        lines = [f"#DW persistentdw name={bb.persistent}"]
    else:
        lines = [f"#DW jobdw type=scratch access_mode={bb.access_mode} capacity={bb.capacity} pool={bb.pool}"]
    where = f"${bb.variable}"
    if stage_in:
        lines.append(f"#DW stage_in type=directory source={stage_in} destination={where}")
    if stage_out:
        lines.append(f"#DW stage_out type=directory source={where} destination={stage_out}")
    return lines


def rabbit_lines(settings: Settings, stage_in: str | None = None, stage_out: str | None = None) -> list[str]:
    """HPE Rabbit (Near Node Flash): ``#DW jobdw type=xfs|gfs2|lustre capacity=... name=...`` (capacity per compute
    node for xfs/gfs2, the aggregate for lustre) and ``#DW copy_in``/``copy_out`` for staging."""
    near = settings.near
    assert near is not None and near.tier is RABBIT
    for text, what in ((stage_in or "", "stage_in"), (stage_out or "", "stage_out")):
        if plain_text(text, what, "one word").split() not in ([text], []):
            raise ConfigError(f"{what}: {text!r} contains a space (a #DW line takes one word per value)")
    lines = [f"#DW jobdw type={near.type} capacity={near.capacity} name={RABBIT_NAME}"]
    if stage_in:
        lines.append(f"#DW copy_in source={stage_in} destination=${near.variable}/")
    if stage_out:
        lines.append(f"#DW copy_out source=${near.variable}/ destination={stage_out}")
    return lines


def job_lines(settings: Settings, path: str = "$OUTPUT_DIR") -> list[str]:
    """The lines a job script needs for the target beyond the MPI's own settings: the directives (#SBATCH, #DW:
    they must precede the script's first command), then the output directory's striping or PCC project."""
    lines = list(dw_lines(settings))
    near = settings.near
    if near is not None and near.tier.tmp_request:
        lines.append(f"#SBATCH --tmp={math.ceil(near.capacity_bytes / 2**20)}M  # node-local flash per node")
        if near.request:
            lines.append(f"# this site asks for the node-local flash with: {near.request}")
    return lines + directory_lines(settings, path)


def directory_lines(settings: Settings, path: str, guard: bool = True) -> list[str]:
    """The output directory's Lustre striping or RW-PCC project as lines that cannot end a job: the directory
    made first, an unset ``$VAR`` path (``in_dir``) and, with ``guard``, a missing ``lfs`` (``if_lfs``) reported
    on stderr."""
    lines = []
    for pcc in pcc_lines(settings, path):
        command, _, note = pcc.partition("  # ")
        line = in_dir(command, path, "the PCC project")
        lines.append((if_lfs(line, "the PCC project") if guard else line) + f"  # {note}")
    stripe = lfs_setstripe(settings, path)
    if stripe:
        line = in_dir(stripe, path, "striping")
        lines.append(if_lfs(line, "striping") if guard else line)
    return lines


def hint_lines(settings: Settings, mpi_flavour: str, patterns: Sequence[str], romio_file: str) -> list[str]:
    """The MPI's settings as the system's MPI reads them: ``MPICH_MPIIO_HINTS`` (Cray MPICH), a ``ROMIO_HINTS``
    file (MPICH), MCA parameters and, under romio321, a ROMIO hints file (Open MPI)."""
    if mpi_flavour == "openmpi":
        return ompi_text(settings, romio_file).splitlines() if settings.mca or settings.info else []
    if mpi_flavour == "cray-mpich":
        line = mpich_export(settings.info, patterns)
        return [line] if line else []
    return romio_file_lines(settings.info, romio_file) if settings.info else []


def pcc_lines(settings: Settings, path: str = "$DATA_DIR") -> list[str]:
    """Lustre RW-PCC: new files under ``path`` carry the project id the site's auto-cache rule matches."""
    near = settings.near
    if near is None or near.tier is not PCC:
        return []
    return [f"lfs project -p {int(near.pcc_project or 0)} -s {shell_path(path)}  # RW-PCC auto-cache rule "
            f"(archive id {int(near.pcc_archive_id or 0)}): new files are cached on the node's flash"]


def romio_file_lines(info: dict[str, str], romio_file: str) -> list[str]:
    body = " ".join(shlex.quote(line) for line in romio_hints_file(info).splitlines())
    target = shlex.quote(plain_text(romio_file, "ROMIO hints file", "a file name"))
    return [f"printf '%s\\n' {body} > {target}", f'export ROMIO_HINTS="$PWD"/{target}']


def ompi_text(settings: Settings, romio_file: str) -> str:
    """Open MPI: the MCA parameters as exports (and as ``--mca`` arguments in a comment); MPI-IO hints as a
    ROMIO_HINTS file only under romio321, which alone reads one (OMPIO takes hints from the app's MPI_Info)."""
    lines = ompi_mca_lines(settings.mca)
    if settings.mca:
        lines.append(f"# or on the command line: mpirun {shlex.join(ompi_mca_args(settings.mca))} ...")
    if settings.info:
        if settings.mca.get("io") == "romio321":
            lines += romio_file_lines(settings.info, romio_file)
        else:
            pairs = ", ".join(f"{k}={v}" for k, v in sorted(_checked(settings.info).items()))
            lines.append(f"# MPI_Info hints for the application's MPI_File_open (OMPIO reads no hints file): {pairs}")
    return "\n".join(lines) or "# defaults: nothing to set"


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

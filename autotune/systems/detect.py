"""Detect the stack this process runs on: cores, the file system of a path, the MPI library, the tools.

The MPI library is asked itself: ``MPI.Get_library_version()`` run under the launcher's ``mpiexec`` and
interpreter (one rank, bounded time), never read from a profile; under Open MPI, ``ompi_info`` tells which
``io`` component (OMPIO or ROMIO) serves files. Each answer is cached per process. The parsing is pure
(``_mpiparse``, ``_fsparse``); this module only gathers the texts.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autotune.systems._fsparse import Mount, base_type, fs_kind, fstype_of_magic, is_network, mount_of, parse_mountinfo
from autotune.systems._mpiparse import (
    MpiLibrary,
    _printable,
    is_romio,
    launcher_flavour,
    mca_args,
    ompi_io_component,
    parse_library_version,
    parse_ompi_info_io,
)

MARKS = ("measured", "detected", "assumed")
TOOLS = ("mpiexec", "ompi_info", "lfs", "dwstat", "sbatch", "srun", "darshan-parser")
MPI_TIMEOUT_S = 30.0
_CODE = "from mpi4py import MPI; print(MPI.Get_library_version(), end='')"
_NOISE = ("leaked handle pool objects",)  # MPICH's harmless yaksa warning at exit


@dataclass(frozen=True)
class Fact:
    """A value with how it is known: ``measured`` (timed here), ``detected`` (read from the host), ``assumed``."""

    value: Any
    mark: str
    source: str


@dataclass(frozen=True)
class FileSystemInfo:
    """The file system a path is on."""

    path: str
    fstype: str          # as the kernel names it (ext4, lustre, nfs4, tmpfs, overlay, dvs, gpfs, ...)
    kind: str            # the system profile's kind: lustre, datawarp or posix
    mount_point: str
    network: bool        # shared between nodes (network or parallel file system)
    source: str          # how it was found (mountinfo, statfs)


@dataclass(frozen=True)
class MpiStack:
    """The MPI library a launcher's ranks load, and the MPI-IO component that serves files."""

    library: MpiLibrary
    io_component: str = ""   # romio (MPICH family), ompio / romio321 / romio341 (Open MPI), "" when unknown
    io_reason: str = ""
    mpiexec: str = ""
    error: str = ""          # why the library could not be asked ("" when it answered)

    @property
    def flavour(self) -> str | None:
        return self.library.flavour

    @property
    def uses_romio(self) -> bool | None:
        """Whether files go through ROMIO (None: unknown)."""
        if self.library.romio_only:
            return True
        return is_romio(self.io_component) if self.io_component else None


@dataclass(frozen=True)
class Detection:
    """What ``detect_stack`` found; ``mpi`` is None when the MPI was not asked."""

    cores: Fact
    filesystem: FileSystemInfo | None
    mpi: MpiStack | None
    tools: Mapping[str, str | None] = field(default_factory=dict)


def detect_cores(env: Mapping[str, str] | None = None) -> Fact:
    """Cores this node gives the job: ``SLURM_CPUS_ON_NODE`` inside a Slurm allocation, else the CPU affinity."""
    env = os.environ if env is None else env
    slurm = env.get("SLURM_CPUS_ON_NODE", "").strip()
    if slurm.isdigit() and int(slurm) > 0:
        return Fact(int(slurm), "detected", "SLURM_CPUS_ON_NODE")
    total = os.cpu_count() or 1
    try:
        mine = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return Fact(total, "detected", "os.cpu_count")
    return Fact(mine, "detected", f"CPU affinity ({mine} of {total} CPUs)")


def detect_tools(names: Sequence[str] = TOOLS) -> dict[str, str | None]:
    """Each tool's path on ``PATH`` (None: absent)."""
    return {name: shutil.which(name) for name in names}


def _existing(path: Path) -> Path:
    """``path`` resolved, or its nearest existing ancestor (the campaign may not have created it yet)."""
    p = path.expanduser().absolute()
    while not p.exists() and p != p.parent:
        p = p.parent
    return p.resolve()


def _statfs_magic(path: str) -> int | None:
    """``statfs(2)``'s ``f_type`` (Linux; the first member of ``struct statfs``), None when unavailable."""
    name = ctypes.util.find_library("c")
    if not name or not sys.platform.startswith("linux"):
        return None
    libc = ctypes.CDLL(name, use_errno=True)
    buf = ctypes.create_string_buffer(256)
    if libc.statfs(os.fsencode(path), buf) != 0:
        return None
    return ctypes.c_long.from_buffer(buf).value


def detect_filesystem(path: str | Path, mountinfo: str | None = None) -> FileSystemInfo | None:
    """The file system ``path`` (or its nearest existing ancestor) is on: ``/proc/self/mountinfo``, else statfs."""
    where = _existing(Path(path))
    if mountinfo is None:
        try:
            mountinfo = Path("/proc/self/mountinfo").read_text(encoding="utf-8", errors="replace")
        except OSError:
            mountinfo = ""
    mount: Mount | None = mount_of(parse_mountinfo(mountinfo), str(where)) if mountinfo else None
    if mount is not None:
        return FileSystemInfo(str(where), mount.fstype, fs_kind(mount.fstype), mount.mount_point,
                              is_network(mount.fstype), "/proc/self/mountinfo")
    magic = _statfs_magic(str(where))
    if magic is None:
        return None
    fstype = fstype_of_magic(magic)
    return FileSystemInfo(str(where), fstype, fs_kind(fstype), "", is_network(fstype), f"statfs f_type 0x{magic:x}")


_MPI_CACHE: dict[tuple[Any, ...], MpiStack] = {}


def _run(argv: Sequence[str], env: Mapping[str, str], timeout: float) -> tuple[int, str, str]:
    """Run ``argv`` in its own session; on timeout the whole session is killed. Raises TimeoutError, OSError."""
    proc = subprocess.Popen(list(argv), env=dict(env), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, text=True, errors="replace", start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.communicate()
        raise TimeoutError(f"no answer within {timeout:g} s") from None
    err = "\n".join(line for line in err.splitlines() if not any(n in line for n in _NOISE))
    return proc.returncode, out, err


def _ompi_info(mpiexec: str) -> str | None:
    """``ompi_info`` beside ``mpiexec`` (same installation), else on ``PATH``."""
    exe = shutil.which(mpiexec)
    if exe:
        for candidate in (Path(exe).with_name("ompi_info"), Path(os.path.realpath(exe)).with_name("ompi_info")):
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return str(candidate)
    return shutil.which("ompi_info")


def detect_mpi(mpiexec: str = "mpiexec", python: str | None = None, mpiexec_args: Sequence[str] = (),
               env: Mapping[str, str] | None = None, timeout: float = MPI_TIMEOUT_S, fs_type: str = "",
               command: bool = False) -> MpiStack:
    """Ask the MPI library the launcher's ranks load (one rank of ``mpiexec ... python -c``), cached per process.

    Under Open MPI, the io component is read from ``ompi_info`` with the launch's selection applied
    (``--mca io`` in ``mpiexec_args``, else ``OMPI_MCA_io``); ``fs_type`` is the target's file system type.
    ``command``: the ranks run a program, not ``python``: the MPI is the one ``mpiexec`` belongs to
    (``detect_launcher``), asked through mpi4py only when ``mpiexec --version`` names none.
    Never raises for a missing or broken MPI: ``MpiStack.error`` says what went wrong.
    """
    env = dict(os.environ if env is None else env)
    python = python or sys.executable
    key = (mpiexec, python, tuple(mpiexec_args), env.get("OMPI_MCA_io", ""), fs_type, env.get("PATH", ""), command)
    hit = _MPI_CACHE.get(key)
    if hit is not None:
        return hit
    flavour, how = detect_launcher(mpiexec, env, timeout) if command else (None, "")
    found = re.search(r"(?<![\d.])(\d+\.\d+(?:\.\d+)?)", how.partition("--version:")[2])
    version = found.group(1) if found else ""
    if flavour == "openmpi":
        if os.geteuid() == 0:
            env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
            env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        stack = _ompi_stack(MpiLibrary("openmpi", version, how), mpiexec, mpiexec_args, env, timeout, fs_type)
    elif flavour == "mpich":
        stack = MpiStack(MpiLibrary("mpich", version, how), "romio", f"{how}: an MPICH-family launcher (ROMIO)", mpiexec)
    else:
        stack = _ask_mpi(mpiexec, python, mpiexec_args, env, timeout, fs_type)
    _MPI_CACHE[key] = stack
    return stack


def _ask_mpi(mpiexec: str, python: str, mpiexec_args: Sequence[str], env: dict[str, str], timeout: float,
             fs_type: str) -> MpiStack:
    if os.geteuid() == 0:  # Open MPI's mpiexec refuses root without these (they change nothing else)
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    unknown = MpiLibrary("unknown")
    try:
        code, out, err = _run([mpiexec, "-n", "1", *mpiexec_args, python, "-c", _CODE], env, timeout)
    except TimeoutError as exc:
        return MpiStack(unknown, mpiexec=mpiexec, error=f"{mpiexec} -n 1 {python}: {exc}")
    except (OSError, ValueError) as exc:  # not found, not executable, a NUL in an argument
        return MpiStack(unknown, mpiexec=mpiexec, error=f"{mpiexec}: {getattr(exc, 'strerror', None) or exc}")
    if code != 0 or not out.strip():
        last = (err.strip().splitlines() or [f"exit status {code}"])[-1]
        return MpiStack(unknown, mpiexec=mpiexec, error=f"{mpiexec} -n 1 {python} (mpi4py): {_printable(last)[:200]}")
    lib = parse_library_version(out)
    if lib.romio_only:
        return MpiStack(lib, "romio", f"{lib.library} is MPICH-derived: its MPI-IO is ROMIO", mpiexec)
    if lib.flavour != "openmpi":
        return MpiStack(lib, "", "unknown library: its MPI-IO component cannot be told", mpiexec)
    return _ompi_stack(lib, mpiexec, mpiexec_args, env, timeout, fs_type)


def _ompi_stack(lib: MpiLibrary, mpiexec: str, mpiexec_args: Sequence[str], env: dict[str, str], timeout: float,
                fs_type: str) -> MpiStack:
    info_exe = _ompi_info(mpiexec)
    if info_exe is None:
        return MpiStack(lib, "", "ompi_info not found: the io component cannot be told", mpiexec)
    try:
        code, out, _ = _run([info_exe, "--parsable", "--param", "io", "all", "--level", "9"], env, timeout)
    except (TimeoutError, OSError, ValueError) as exc:
        return MpiStack(lib, "", f"{info_exe}: {exc}", mpiexec)
    io = parse_ompi_info_io(out)
    if code != 0 or not io.components:
        return MpiStack(lib, "", f"{info_exe} listed no io component", mpiexec)
    selection = mca_args(mpiexec_args).get("io")
    component, why = ompi_io_component(io, lib.version, selection=selection, fs_type=base_type(fs_type))
    if selection is not None:
        why = f"--mca io {selection}: {why}"
    elif io.selection and io.selection_source:
        why = f"io={io.selection} ({io.selection_source}): {why}"
    return MpiStack(lib, component, f"ompi_info: {why}", mpiexec)


_LAUNCHER_CACHE: dict[tuple[str, str], tuple[str | None, str]] = {}


def detect_launcher(mpiexec: str = "mpiexec", env: Mapping[str, str] | None = None,
                    timeout: float = MPI_TIMEOUT_S) -> tuple[str | None, str]:
    """The MPI family ``mpiexec`` belongs to, from ``mpiexec --version`` (cached per process): ``(flavour, how)``,
    flavour None when it cannot be told. A command runs the MPI its launcher belongs to, whatever mpi4py this
    process has (mpi4py built against MPICH under Open MPI's mpiexec still answers MPICH)."""
    env = dict(os.environ if env is None else env)
    key = (mpiexec, env.get("PATH", ""))
    if key not in _LAUNCHER_CACHE:
        try:
            code, out, err = _run([mpiexec, "--version"], env, timeout)
        except (TimeoutError, OSError, ValueError) as exc:
            _LAUNCHER_CACHE[key] = (None, f"{mpiexec} --version: {getattr(exc, 'strerror', None) or exc}")
        else:
            flavour = launcher_flavour(out + "\n" + err)
            first = _printable((out.strip() or err.strip()).splitlines()[0] if (out.strip() or err.strip()) else "")
            _LAUNCHER_CACHE[key] = (flavour, f"{mpiexec} --version: {first[:80]}" if flavour else
                                    f"{mpiexec} --version (exit {code}) names no known MPI")
    return _LAUNCHER_CACHE[key]


def detect_stack(path: str | Path = ".", *, mpi: bool = True, mpiexec: str = "mpiexec", python: str | None = None,
                 mpiexec_args: Sequence[str] = (), env: Mapping[str, str] | None = None) -> Detection:
    """Everything at once: cores, ``path``'s file system, the MPI (unless ``mpi`` is False), the tools."""
    fs = detect_filesystem(path)
    stack = detect_mpi(mpiexec, python, mpiexec_args, env, fs_type=fs.fstype if fs else "") if mpi else None
    return Detection(detect_cores(env), fs, stack, detect_tools())

"""Which MPI library this is, from its own words: pure parsers of ``MPI_Get_library_version`` and ``ompi_info``.

The formats (MPI-3.0 leaves the text to the implementation):

- MPICH: ``MPICH Version:<TAB>4.0.2`` then ``MPICH Device:<TAB>ch4:ucx`` … (MPICH's ``mpichversion`` prints
  the same lines);
- Cray MPICH: ``MPI VERSION    : CRAY MPICH version 8.1.25.17 (ANL base 3.4a2)`` (HPE Cray PE);
- Open MPI: ``Open MPI v4.1.4, package: …, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022`` (IBM Spectrum
  MPI, built on Open MPI, prints ``IBM Spectrum MPI`` in the same line);
- Intel MPI: ``Intel(R) MPI Library 2021.6 for Linux* OS`` (older: ``… 2019 Update 6 for Linux* OS``);
- MVAPICH: ``MVAPICH2 Version      :<TAB>2.3.7`` (``MVAPICH Version`` from 3.0).

Cray MPICH, Intel MPI and MVAPICH derive from MPICH: their MPI-IO is ROMIO, so they share MPICH's
hint dialects (``MPI_Info``, a ``ROMIO_HINTS`` file). Open MPI picks an ``io`` component at run time:
OMPIO (its own) or ROMIO (``romio321`` in 4.x, ``romio341`` in 5.x), the available one with the highest
priority unless the MCA parameter ``io`` selects (``OMPI_MCA_io=romio321``, ``--mca io romio321``); before
4.1 OMPIO lowered its own priority on Lustre, so ROMIO served Lustre files (Open MPI FAQ, "Tuning the
OMPIO parallel I/O component").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from autotune.tiers import LUSTRE, by_mount_type

MPI_LIBRARIES = ("mpich", "cray-mpich", "openmpi", "intel-mpi", "mvapich", "spectrum-mpi")
# the profile's ``mpi.flavour`` each library's hints and dialects follow (MPICH derivatives: ROMIO)
_FLAVOUR = {"mpich": "mpich", "cray-mpich": "cray-mpich", "openmpi": "openmpi", "intel-mpi": "mpich",
            "mvapich": "mpich", "spectrum-mpi": "openmpi"}
_ROMIO_PREFIX = "romio"


@dataclass(frozen=True)
class MpiLibrary:
    """An MPI library as it names itself: ``library`` is one of ``MPI_LIBRARIES`` or ``unknown``."""

    library: str
    version: str = ""
    summary: str = ""   # the text's first line, printable characters only
    base: str = ""      # the MPICH release a derivative is based on (Cray: "ANL base 3.4a2")
    device: str = ""    # MPICH's device (ch4:ofi, ch4:ucx, ch3:mrail)

    @property
    def flavour(self) -> str | None:
        """The system profile's ``mpi.flavour`` this library's dialect is (None: unknown library)."""
        return _FLAVOUR.get(self.library)

    @property
    def romio_only(self) -> bool:
        """True when the library's MPI-IO is always ROMIO (MPICH and its derivatives)."""
        return self.flavour in ("mpich", "cray-mpich")

    def describe(self) -> str:
        parts = [self.library, self.version]
        if self.base:
            parts.append(f"({self.base})")
        if self.device:
            parts.append(f"device {self.device}")
        return " ".join(p for p in parts if p)


def _printable(text: str) -> str:
    return " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())


def _field(text: str, pattern: str) -> str:
    m = re.search(pattern, text, re.MULTILINE)
    return m.group(1).strip() if m else ""


def parse_library_version(text: str) -> MpiLibrary:
    """Classify ``MPI_Get_library_version``'s text (``mpi4py``: ``MPI.Get_library_version()``)."""
    body = text.replace("\x00", "").strip()
    first = _printable(body.splitlines()[0]) if body else ""
    if re.search(r"CRAY MPICH", body):
        return MpiLibrary("cray-mpich", _field(body, r"CRAY MPICH version ([0-9][0-9A-Za-z.]*)"), first,
                          base=_field(body, r"\((ANL base [^)]+)\)"))
    if body.startswith("Intel"):
        m = re.match(r"Intel\(R\) MPI Library (\d+(?:\.\d+)*)(?: Update (\d+))?", body)
        version = "" if m is None else m.group(1) + (f" Update {m.group(2)}" if m.group(2) else "")
        return MpiLibrary("intel-mpi", version, first)
    if re.match(r"MVAPICH2?\s+Version", body):
        return MpiLibrary("mvapich", _field(body, r"^MVAPICH2?\s+Version\s*:\s*(\S+)"), first,
                          device=_field(body, r"^MVAPICH2?\s+Device\s*:\s*(\S+)"))
    if body.startswith("Open MPI") or "IBM Spectrum MPI" in first:
        library = "spectrum-mpi" if "IBM Spectrum MPI" in first else "openmpi"
        version = _field(body, r"^Open MPI v(\d[0-9A-Za-z.]*)") or _field(body, r"ident: (\d[0-9A-Za-z.]*)")
        return MpiLibrary(library, version, first)
    if re.match(r"MPICH2?\s+Version", body):
        return MpiLibrary("mpich", _field(body, r"^MPICH2?\s+Version:\s*(\S+)"), first,
                          device=_field(body, r"^MPICH2?\s+Device:\s*(\S+)"))
    return MpiLibrary("unknown", "", first)


@dataclass(frozen=True)
class OpenMpiIoComponents:
    """Open MPI's ``io`` framework as ``ompi_info --parsable --param io all --level 9`` reports it."""

    components: tuple[str, ...] = ()
    selection: str = ""                       # the MCA parameter ``io`` ("" = every component may be used)
    selection_source: str = ""                # where that value came from (default, environment, file, ...)
    priorities: Mapping[str, int] = field(default_factory=dict)


def parse_ompi_info_io(text: str) -> OpenMpiIoComponents:
    """Read the io components, their priorities and the ``io`` selection from ``ompi_info --parsable``."""
    components: list[str] = []
    priorities: dict[str, int] = {}
    selection, source = "", ""
    for line in text.splitlines():
        parts = line.strip().split(":", 6)
        if len(parts) < 5 or parts[0] != "mca" or parts[1] != "io":
            continue
        comp = parts[2]
        if parts[3] == "version" and comp != "base" and comp not in components:
            components.append(comp)
        elif parts[3] == "param" and len(parts) >= 6:
            name, key, value = parts[4], parts[5], parts[6] if len(parts) > 6 else ""
            if comp == "base" and name == "io":
                if key == "value":
                    selection = value.strip().strip('"')
                elif key == "source":
                    source = value.strip()
            elif name == f"io_{comp}_priority" and key == "value":
                try:
                    priorities[comp] = int(value.strip().strip('"'))
                except ValueError:
                    continue
    return OpenMpiIoComponents(tuple(components), selection, source, priorities)


def launcher_flavour(text: str) -> str | None:
    """The profile flavour of an ``mpiexec --version`` text: Open MPI's launcher names itself ("mpiexec
    (OpenRTE) 4.1.4", Open MPI 5: "(Open MPI)"), MPICH's and Intel MPI's Hydra print "HYDRA build details" or
    "Intel(R) MPI Library" (both ROMIO: the ``mpich`` flavour); None for anything else."""
    if re.search(r"OpenRTE|Open MPI|PRRTE", text):
        return "openmpi"
    if re.search(r"HYDRA|Intel\(R\) MPI Library", text):
        return "mpich"
    return None


def mca_args(argv: Sequence[str]) -> dict[str, str]:
    """The MCA parameters a launcher's arguments set (``--mca NAME VALUE``, ``-mca``, ``--gmca``)."""
    out: dict[str, str] = {}
    args = list(argv)
    k = 0
    while k < len(args):
        if args[k] in ("--mca", "-mca", "--gmca", "-gmca") and k + 2 < len(args):
            out[args[k + 1]] = args[k + 2]
            k += 3
            continue
        k += 1
    return out


def is_romio(component: str) -> bool:
    """True for a ROMIO io component (``romio321``, ``romio341``)."""
    return component.startswith(_ROMIO_PREFIX)


def _selected(spec: str, available: Sequence[str]) -> list[str]:
    """The components an MCA selection list allows: ``a,b`` includes, ``^a,b`` excludes, "" allows all."""
    spec = spec.strip()
    if not spec:
        return list(available)
    if spec.startswith("^"):
        excluded = {s.strip() for s in spec[1:].split(",")}
        return [c for c in available if c not in excluded]
    return [c for c in (s.strip() for s in spec.split(",")) if c in available]


def _version_tuple(version: str) -> tuple[int, ...]:
    nums = re.findall(r"\d+", version)
    return tuple(int(n) for n in nums[:3])


def ompi_io_component(io: OpenMpiIoComponents, version: str, *, selection: str | None = None,
                      fs_type: str = "") -> tuple[str, str]:
    """The io component Open MPI will use for a file, and why: ``(component, reason)``.

    ``selection`` overrides ``io.selection`` (``OMPI_MCA_io`` or ``--mca io`` of the launch); ``fs_type`` is the
    file's file system type (``lustre`` matters before Open MPI 4.1). ``("", reason)`` when nothing can be used.
    """
    spec = io.selection if selection is None else selection
    allowed = _selected(spec, io.components)
    if not allowed:
        return "", f"io selection {spec!r} names none of the components ({', '.join(io.components) or 'none'})"
    prio = dict(io.priorities)
    if by_mount_type(fs_type) is LUSTRE and "ompio" in prio and _version_tuple(version) < (4, 1):
        prio["ompio"] = 1  # Open MPI < 4.1: OMPIO steps back on Lustre
    best = max(allowed, key=lambda c: (prio.get(c, 0), c == "ompio"))
    why = (f"io selection {spec!r}" if spec and len(allowed) == 1 else
           "highest priority " + ", ".join(f"{c}={prio.get(c, 0)}" for c in allowed))
    return best, why

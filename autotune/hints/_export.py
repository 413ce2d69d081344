"""The export dialects (``autotune export --format``, ``autotune hints --format``): one ``Dialect`` class per
format in ``DIALECTS``; the command-line choices are ``DIALECTS.names()``."""

from __future__ import annotations

import abc
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from autotune._registry import NOT_ONE_OF, Plugin, Registry

if TYPE_CHECKING:
    from autotune.hints._settings import Settings

# The line helpers live in autotune.hints._dialects; each render imports them when called (they import the
# settings and the space), so that the list of formats (--format choices) costs nothing to import.


@dataclass(frozen=True)
class ExportDestination:
    """Where the text is pasted: the system's MPI, the hint-file patterns, the output directory, the ROMIO file."""

    mpi_flavour: str = "cray-mpich"
    patterns: Sequence[str] = ("*",)
    path: str = "$OUTPUT_DIR"
    romio_file: str = "romio-hints.txt"


class Dialect(Plugin, abc.ABC):
    """One export format. Subclasses set ``name`` and ``what`` (one line for ``--help``) and implement ``render``.

    Contract (checked by ``autotune.testing.contracts``): ``render(settings, target)`` returns text a user pastes
    as it is; every setting the format carries appears in it (a format that carries none of the given settings
    says so in a ``#`` comment instead of printing nothing); it never lets a key or value break out of its line
    (a value that cannot be written is a one-line ``ConfigError``); it imports nothing heavy.
    """

    what: ClassVar[str] = ""

    @abc.abstractmethod
    def render(self, settings: Settings, target: ExportDestination) -> str:
        """The format's text for ``settings`` (see the class contract)."""


class Mpich(Dialect):
    name = "mpich"
    what = "export MPICH_MPIIO_HINTS=... (Cray MPICH)"

    def render(self, settings: Settings, target: ExportDestination) -> str:
        from autotune.hints._dialects import mpich_export

        return mpich_export(settings.info, target.patterns) or "# no MPI-IO hints: keep the defaults"


class Romio(Dialect):
    name = "romio"
    what = "a ROMIO_HINTS file"

    def render(self, settings: Settings, target: ExportDestination) -> str:
        from autotune.hints._dialects import romio_hints_file

        if target.mpi_flavour == "openmpi" and settings.config.get("ompi.io", "ompio") == "ompio" and settings.info:
            pairs = ", ".join(f"{k}={v}" for k, v in sorted(settings.info.items()))
            return f"# OMPIO reads no ROMIO hints file: give these to the application's MPI_File_open as MPI_Info: {pairs}\n"
        return romio_hints_file(settings.info) or "# no MPI-IO hints: keep the defaults\n"


class OpenMpiMca(Dialect):
    name = "ompi"
    what = "export OMPI_MCA_...=... lines and the mpirun --mca equivalent (Open MPI)"

    def render(self, settings: Settings, target: ExportDestination) -> str:
        from autotune.hints._dialects import ompi_text

        return ompi_text(settings, target.romio_file)


class LustreDirectory(Dialect):
    name = "lfs"
    what = "lfs setstripe (Lustre) or lfs project (RW-PCC) on the output directory"

    def render(self, settings: Settings, target: ExportDestination) -> str:
        from autotune.hints._dialects import directory_lines

        return "\n".join(directory_lines(settings, target.path, guard=False)) or "# not a Lustre target: no striping"


class BurstBufferDirectives(Dialect):
    name = "dw"
    what = "#DW jobdw lines"

    def render(self, settings: Settings, target: ExportDestination) -> str:
        from autotune.hints._dialects import dw_lines

        return "\n".join(dw_lines(settings)) or "# not a DataWarp or Rabbit target: no #DW lines"


class Job(Dialect):
    name = "job"
    what = "every job-script line for the target (#SBATCH, #DW, lfs, the MPI's hints)"

    def render(self, settings: Settings, target: ExportDestination) -> str:
        from autotune.hints._dialects import hint_lines, job_lines

        lines = job_lines(settings, target.path) + hint_lines(settings, target.mpi_flavour, target.patterns,
                                                               target.romio_file)
        return "\n".join(lines) or "# defaults: nothing to set"


class H5py(Dialect):
    name = "h5py"
    what = "an h5py.File snippet"

    def render(self, settings: Settings, target: ExportDestination) -> str:
        from autotune.hints._dialects import h5py_snippet

        return h5py_snippet(settings)


class Env(Dialect):
    name = "env"
    what = "shell lines for the system's MPI (and the output directory's striping)"

    def render(self, settings: Settings, target: ExportDestination) -> str:
        from autotune.hints._dialects import directory_lines, hint_lines

        lines = hint_lines(settings, target.mpi_flavour, target.patterns, target.romio_file)
        return "\n".join(lines + directory_lines(settings, target.path)) or "# defaults: nothing to set"


class Json(Dialect):
    name = "json"
    what = "everything as JSON"

    def render(self, settings: Settings, target: ExportDestination) -> str:
        return json.dumps({
            "config": settings.config, "mpi_info": settings.info, "mca": settings.mca,
            "stripe": vars(settings.stripe) if settings.stripe else None,
            "burst_buffer": vars(settings.bb) if settings.bb else None,
            "near_node": vars(settings.near) if settings.near else None,
            "hdf5_alignment": settings.hdf5_alignment,
        }, indent=2, sort_keys=True)


DIALECTS: Registry[type[Dialect]] = Registry("dialect", "--format", NOT_ONE_OF, base=Dialect)
for _cls in (Mpich, Romio, OpenMpiMca, LustreDirectory, BurstBufferDirectives, Job, H5py, Env, Json):
    DIALECTS.register(_cls.name, _cls)
FORMATS = tuple(DIALECTS.names())


def render(fmt: str, settings: Settings, *, mpi_flavour: str = "cray-mpich", patterns: Sequence[str] = ("*",),
           path: str = "$OUTPUT_DIR", romio_file: str = "romio-hints.txt") -> str:
    """One export format as text (what ``autotune export --format`` prints)."""
    return DIALECTS.get(fmt)().render(settings, ExportDestination(mpi_flavour, tuple(patterns), path, romio_file))

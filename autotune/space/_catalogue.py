"""Every tunable parameter autotune knows: its layer, where it can act, and the hint it becomes.

A search space may only use these names; ``acts_when`` says on which targets a parameter can take
effect (a parameter that cannot act is left out of the search with a notice, never silently tuned).
"""

from __future__ import annotations

from dataclasses import dataclass

from autotune.tiers import DATAWARP, LUSTRE, RABBIT


@dataclass(frozen=True)
class KnownParameter:
    """A known parameter: ``mpi_info`` is its ROMIO/Cray MPI-IO hint key (None: not an MPI-IO hint); ``mca`` is
    its Open MPI MCA parameter (``OMPI_MCA_<mca>`` in the environment, ``--mca <mca>`` on the command line)."""

    name: str
    kind: str  # "int" | "size" | "choice"
    mpi_info: str | None
    acts_when: str
    why_not: str
    help: str
    aligns_with: tuple[str, ...] = ()  # parameters whose value this one should often equal (a search move)
    minimum: int | None = None  # the smallest meaningful value (a fixed value or a range below it is refused)
    mca: str | None = None
    values: tuple[str, ...] = ()  # a choice's only meaningful values (empty: any one-word value)
    # values the system reads as another one on the target: (value, that one as an expression over ``fs.*``, what
    # the system documents it to mean); a space binds them to the target's value (``autotune.space.resolve_alias``)
    aliases: tuple[tuple[int, str, str], ...] = ()


# ROMIO runs inside MPICH, Cray MPICH and (as the io component romio321) Open MPI; under Open MPI the ROMIO-only
# hints act only when that component is selected (rule romio_hints_need_romio in rules.yaml).
_ROMIO = "system.mpi in ['mpich', 'cray-mpich', 'openmpi']"
_UPSTREAM_ROMIO = "system.mpi in ['mpich', 'openmpi']"
_CRAY = "system.mpi == 'cray-mpich'"
_OMPI = "system.mpi == 'openmpi'"
_NOT_OMPI = "needs Open MPI (an MCA parameter of its OMPIO component)"
_TRI = ("automatic", "enable", "disable")  # ROMIO's values for romio_cb_* and romio_ds_* (ROMIO users guide)

CATALOGUE: dict[str, KnownParameter] = {k.name: k for k in (
    KnownParameter("lustre.stripe_count", "int", "striping_factor", f"fs.kind == {LUSTRE.name!r}",
                   "striping needs a Lustre target", "OSTs a file is striped over (lfs setstripe -c)", minimum=1,
                   # lfs-setstripe(1), Lustre Operations Manual ("Setting the File Layout/Striping Configuration")
                   aliases=((-1, "fs.osts", "every OST (lfs setstripe -c -1)"),
                            (0, "fs.default_stripe_count", "the file system's default (lfs setstripe -c 0)"))),
    KnownParameter("lustre.stripe_size", "size", "striping_unit",
                   f"fs.kind == {LUSTRE.name!r} or (fs.kind == {DATAWARP.name!r} and system.mpi == 'cray-mpich')",
                   "stripe size needs a Lustre target (or Cray MPI-IO on DataWarp)",
                   "bytes per stripe (lfs setstripe -S); on Cray also the collective buffer size", minimum=1),
    KnownParameter("mpiio.cb_nodes", "int", "cb_nodes", _ROMIO, "needs a ROMIO-based MPI-IO",
                   "collective-buffering aggregators (Cray: per stripe; ROMIO: capped per node by cb_config_list)",
                   # aggregators = stripes or BB nodes (KAUST training)
                   aligns_with=("lustre.stripe_count", "bb.nodes"), minimum=1),
    KnownParameter("mpiio.cb_buffer_size", "size", "cb_buffer_size", _UPSTREAM_ROMIO,
                   "Cray MPI-IO ignores cb_buffer_size (its collective buffer is the stripe size)",
                   "collective buffer per aggregator (ROMIO)", minimum=1),
    KnownParameter("mpiio.cb_config_list", "choice", "cb_config_list", _UPSTREAM_ROMIO,
                   "only upstream ROMIO places aggregators by cb_config_list",
                   "aggregator placement, e.g. '*:1' (one per node, default) or '*:*'"),
    KnownParameter("mpiio.romio_cb_write", "choice", "romio_cb_write", _ROMIO, "needs a ROMIO-based MPI-IO",
                   "collective buffering for writes: automatic | enable | disable", values=_TRI),
    KnownParameter("mpiio.romio_cb_read", "choice", "romio_cb_read", _ROMIO, "needs a ROMIO-based MPI-IO",
                   "collective buffering for reads: automatic | enable | disable", values=_TRI),
    KnownParameter("mpiio.romio_ds_write", "choice", "romio_ds_write", _ROMIO, "needs a ROMIO-based MPI-IO",
                   "data sieving for independent writes: automatic | enable | disable", values=_TRI),
    KnownParameter("mpiio.romio_ds_read", "choice", "romio_ds_read", _ROMIO, "needs a ROMIO-based MPI-IO",
                   "data sieving for independent reads: automatic | enable | disable", values=_TRI),
    KnownParameter("mpiio.romio_no_indep_rw", "choice", "romio_no_indep_rw", _ROMIO, "needs a ROMIO-based MPI-IO",
                   "promise that all I/O is collective ('true'/'false'); required by Cray lock mode 1",
                   values=("true", "false")),
    KnownParameter("cray.cb_nodes_multiplier", "int", "cray_cb_nodes_multiplier", _CRAY, "a Cray MPI-IO hint",
                   "aggregators per stripe (total aggregators = cb_nodes x multiplier)", minimum=1),
    KnownParameter("cray.cb_write_lock_mode", "int", "cray_cb_write_lock_mode", _CRAY, "a Cray MPI-IO hint",
                   "0 = standard extent locks, 1 = one shared lock (all-collective MPI-IO apps only)", minimum=0),
    # Open MPI 4.1's MPI-IO (`ompi_info --param io ompio --level 9`, `ompi_info --param fcoll all --level 9`).
    KnownParameter("ompi.io", "choice", None, _OMPI, "the io component is an Open MPI MCA parameter",
                   "Open MPI's MPI-IO component: ompio (the default) | romio321 (ROMIO inside Open MPI 4.1)", mca="io"),
    KnownParameter("ompi.fcoll", "choice", None, _OMPI, _NOT_OMPI,
                   "OMPIO's collective-write algorithm: vulcan | dynamic | dynamic_gen2 | two_phase | individual "
                   "(individual: no aggregation, every rank writes its own data)", mca="fcoll"),
    KnownParameter("ompi.num_aggregators", "int", None, _OMPI, _NOT_OMPI,
                   "OMPIO aggregators (io_ompio_num_aggregators; unset: OMPIO chooses)", minimum=1,
                   mca="io_ompio_num_aggregators"),
    KnownParameter("ompi.bytes_per_agg", "size", None, _OMPI, _NOT_OMPI,
                   "OMPIO's collective buffer per aggregator (io_ompio_bytes_per_agg, default 32 MiB)", minimum=1,
                   mca="io_ompio_bytes_per_agg"),
    KnownParameter("ompi.cycle_buffer_size", "size", None, _OMPI, _NOT_OMPI,
                   "data one aggregator handles per cycle (io_ompio_cycle_buffer_size, default 512 MiB)", minimum=1,
                   mca="io_ompio_cycle_buffer_size"),
    KnownParameter("hdf5.alignment", "size", None, "app.library == 'hdf5'", "the app does not use HDF5",
                   "H5Pset_alignment: objects >= threshold aligned to this many bytes (1 = off)", minimum=1),
    KnownParameter("bb.nodes", "int", None, f"fs.kind == {DATAWARP.name!r}", "the target is not a DataWarp burst buffer",
                   "burst-buffer nodes (capacity = nodes x granularity)", minimum=1),
    KnownParameter("bb.pool", "choice", None, f"fs.kind == {DATAWARP.name!r}", "the target is not a DataWarp burst buffer",
                   "DataWarp pool (granularity differs per pool)"),
    KnownParameter("bb.access_mode", "choice", None, f"fs.kind == {DATAWARP.name!r}", "the target is not a DataWarp burst buffer",
                   "DataWarp access mode: striped (one namespace over the BB nodes) | private (a namespace per compute"
                   " node, one grain each; KAUST Shaheen II training)", values=("striped", "private")),
    KnownParameter("rabbit.type", "choice", None, f"fs.kind == {RABBIT.name!r}",
                   "the target is not an HPE Rabbit (Near Node Flash)",
                   "Rabbit file system: xfs/gfs2 (one per compute node, capacity per node) | lustre (shared by the job)",
                   values=RABBIT.rabbit_types),
)}


def check_choice(name: str, value: object, searched: bool = False) -> str | None:
    """Why ``value`` cannot be a value of choice parameter ``name`` (one line), or None.

    Where the MPI library knows only a few values (ROMIO's ``automatic | enable | disable``), any other
    would be ignored by it silently. A ``searched`` choice is also one word: the search would spend trials
    on a value with spaces, which no hint takes (ROMIO's hints file is ``key value`` lines)."""
    known = CATALOGUE.get(name)
    if known is None or known.kind != "choice" or isinstance(value, bool):
        return None
    text = str(value)
    if searched and (not text.strip() or any(ch.isspace() for ch in text)):
        return f"{text!r} is not one word (a hint value cannot hold spaces)"
    if known.values and not (text.lower() in known.values and text in (text.lower(), text.upper())):
        return f"{text!r} is not one of {' | '.join(known.values)}"
    return None

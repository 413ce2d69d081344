"""Settings that cannot act, so are never exported: aggregator hints without collective buffering, the BB
node count in DataWarp private mode, settings of a phase the objective does not measure (a read hint on
a write-bandwidth campaign), and settings their own trial showed not in effect."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from autotune.space._catalogue import CATALOGUE

# Settings that only shape collective buffering (the aggregators and their buffer).
AGGREGATOR_SETTINGS = ("mpiio.cb_nodes", "mpiio.cb_buffer_size", "mpiio.cb_config_list", "cray.cb_nodes_multiplier",
                       "cray.cb_write_lock_mode")


# Under Open MPI, settings only one of its MPI-IO components reads: ROMIO's hints act under ``ompi.io=romio321``
# only (OMPIO ignores them; it honours the standard cb_nodes), OMPIO's MCA parameters under ``ompi.io=ompio`` only.
ROMIO_ONLY_SETTINGS = ("mpiio.cb_buffer_size", "mpiio.cb_config_list", "mpiio.romio_cb_write", "mpiio.romio_cb_read",
                       "mpiio.romio_ds_write", "mpiio.romio_ds_read", "mpiio.romio_no_indep_rw")
OMPIO_ONLY_SETTINGS = ("ompi.fcoll", "ompi.num_aggregators", "ompi.bytes_per_agg", "ompi.cycle_buffer_size")


# The rules above as written in rules.yaml: breaking one wastes a run (the setting cannot act), it harms nothing,
# so `autotune check` runs such a configuration to show what takes effect (tune never does).
COMPONENT_RULES = ("romio_hints_need_romio", "ompio_knobs_need_ompio")


def other_component(config: Mapping[str, Any]) -> dict[str, str]:
    """Under Open MPI (``ompi.io`` in ``config``): the settings of the io component that does not run, each with
    why; they are neither delivered nor exported."""
    io = config.get("ompi.io")
    if io is None:
        return {}
    names, why = ((ROMIO_ONLY_SETTINGS, "a ROMIO hint: OMPIO (ompi.io=ompio) ignores it") if io == "ompio" else
                  (OMPIO_ONLY_SETTINGS, f"an OMPIO parameter: the io component {io} does not read it"))
    return {k: why for k in names if k in config}


# Settings that act on one phase only.
PHASE_SETTINGS = {"write": ("mpiio.romio_cb_write", "mpiio.romio_ds_write", "cray.cb_write_lock_mode"),
                  "read": ("mpiio.romio_cb_read", "mpiio.romio_ds_read")}


def measured_phases(metric: str, phases: Sequence[str]) -> tuple[str, ...]:
    """The phases an objective ``metric`` measures: ``write_*`` the writes, ``read_*`` the reads (when the app
    has that phase), anything else (a total time, a walltime) every phase of the app."""
    name = metric.lower()
    for phase in ("write", "read"):
        if name.startswith(phase) and phase in phases:
            return (phase,)
    return tuple(phases)


def inert(config: Mapping[str, Any], phases: Sequence[str] = ("write",)) -> dict[str, str]:
    """The settings of ``config`` that cannot act on ``phases`` (the phases the objective measures: see
    ``measured_phases``), each with why.

    Aggregator settings act only through collective buffering: with ``romio_cb_write=disable`` they are
    inert for writes, and for the whole app when it does not read or ``romio_cb_read=disable`` too. A
    setting of one phase (``romio_cb_read``, ``romio_ds_write``, ...) is inert where that phase is not measured.
    """
    out = {k: f"acts on {phase}s only, which the objective does not measure"
           for phase, names in PHASE_SETTINGS.items() if phase not in phases for k in names if k in config}
    out.update(other_component(config))
    if config.get("bb.access_mode") == "private" and "bb.nodes" in config:
        out["bb.nodes"] = "DataWarp private mode gives each compute node one grain, so bb.nodes has no effect"
    write_off = config.get("mpiio.romio_cb_write") == "disable" or "write" not in phases
    read_off = config.get("mpiio.romio_cb_read") == "disable" or "read" not in phases
    if not (write_off and read_off):
        return out
    why = "collective buffering is disabled (romio_cb_write=disable), so the aggregators do not exist"
    if "read" in phases:
        why = "collective buffering is disabled for writes and reads, so the aggregators do not exist"
    return {**out, **{k: why for k in AGGREGATOR_SETTINGS if k in config}}


def not_applied(config: Mapping[str, Any], not_in_effect: Mapping[str, Any]) -> dict[str, str]:
    """The settings of ``config`` whose MPI-IO hint (or Open MPI MCA parameter, ``mca:<name>``) a run showed not in
    effect (``not_in_effect``: a trial's ``hints_not_in_effect``), each with why."""
    out: dict[str, str] = {}
    for name in config:
        known = CATALOGUE.get(name)
        keys = (known.mpi_info, f"mca:{known.mca}" if known.mca else None) if known is not None else ()
        for key in keys:
            if key is not None and key in not_in_effect:
                seen = not_in_effect[key]
                why = seen.get("why") if isinstance(seen, Mapping) else None
                out[name] = f"its trial showed {key} not in effect" + (f" ({why})" if why else "")
    return out


def acting(config: Mapping[str, Any], phases: Sequence[str], not_in_effect: Mapping[str, Any] | None = None,
           judged: Collection[str] | None = None) -> tuple[dict[str, Any], dict[str, str]]:
    """``config`` without the settings that cannot act on ``phases`` (``inert``, judged on the whole configuration:
    a fixed ``romio_cb_write=disable`` makes a searched ``cb_nodes`` inert) and those of ``judged`` (default: all;
    the searched ones, where a campaign's fixed settings stay its own choice) that their trial showed not in
    effect (``not_applied``); and the dropped settings with why."""
    shown = not_applied({k: v for k, v in config.items() if judged is None or k in judged}, not_in_effect or {})
    dropped = {**shown, **inert(config, phases)}
    return {k: v for k, v in config.items() if k not in dropped}, dropped

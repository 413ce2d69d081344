"""Did each requested setting take effect? Three answers, each with how it was found (pure: no MPI import).

An echo is never proof: Open MPI's ``MPI_File_get_info`` returns the keys that were passed in (under OMPIO and
under romio321 alike), so only evidence the library cannot fake counts:

- the ranks that really wrote (each rank's ``wchar`` from ``/proc/self/io`` around the timed write region):
  with collective buffering only the aggregators write, so the count proves ``cb_nodes``,
  ``io_ompio_num_aggregators``, ``romio_cb_write`` and ``fcoll=individual``;
- the MPI-IO components the process loaded (``mca_io_*.so``/``mca_fcoll_*.so`` in ``/proc/self/maps``: Open MPI
  loads OMPIO's fcoll components only when OMPIO opens a file, and with ``io=romio321`` only that component);
- ROMIO's own report of its hints (``MPI_File_get_info`` under MPICH, ``ROMIO_PRINT_HINTS`` under MPICH or
  romio321), which holds the values ROMIO uses, not the ones asked for.

A setting that never reached the program is "not passed" (a command's hints go into a ROMIO_HINTS file, which
OMPIO never reads); everything else is "not verifiable".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from autotune.measure._hinteffect import ineffective_hints
from autotune.measure._hintsdisplay import PrintedHints
from autotune.systems import parse_library_version

IN_EFFECT = "in effect"
NOT_IN_EFFECT = "not in effect"
NOT_VERIFIABLE = "not verifiable"
NOT_PASSED = "not passed"  # the setting never reached the program (e.g. a ROMIO_HINTS file under OMPIO)
STATES = (IN_EFFECT, NOT_IN_EFFECT, NOT_PASSED, NOT_VERIFIABLE)

MCA_PREFIX = "mca:"  # an Open MPI MCA parameter in a verification (``mca:fcoll``), beside MPI_Info keys
# ROMIO's own hints: OMPIO has no such keys (Open MPI's MPI-IO documentation); cb_nodes is standard and OMPIO honours it.
ROMIO_KEYS = frozenset({"cb_buffer_size", "cb_config_list", "romio_cb_write", "romio_cb_read", "romio_ds_write",
                        "romio_ds_read", "romio_no_indep_rw", "ind_wr_buffer_size", "ind_rd_buffer_size"})
OMPIO_MCA = frozenset({"fcoll", "io_ompio_num_aggregators", "io_ompio_bytes_per_agg", "io_ompio_cycle_buffer_size",
                       "fs_lustre_stripe_size", "fs_lustre_stripe_width"})
WRITER_MIN_BYTES = 4096
_COUNTER = "per-rank bytes written in the timed region, /proc/self/io wchar"


@dataclass(frozen=True)
class Evidence:
    """What a run showed. ``library``: mpich | cray-mpich | openmpi | "" (unknown). ``reported``: the hints the
    library reported; ``reports_real_values``: that report holds ROMIO's own values (not an echo).
    ``write_bytes``: per rank, bytes written in the timed write region (None: not measured).
    ``components``: Open MPI io/fcoll components the process loaded (e.g. ``["io:ompio", "fcoll:vulcan"]``)."""

    library: str = ""
    reported: Mapping[str, str] = field(default_factory=dict)
    reports_real_values: bool = False
    write_bytes: Sequence[int] | None = None
    collective_shared: bool = True   # collective writes to one shared file (else aggregation cannot happen)
    components: Sequence[str] | None = None
    judged: str = ""  # which printed open ``reported`` comes from, when the program printed several
    disagree: Mapping[str, Sequence[str]] = field(default_factory=dict)  # keys the opens printed differently

    @property
    def writers(self) -> int | None:
        """Ranks that wrote a share of the data: more than a 16th of an even share and more than 4 KiB (the MPI
        runtime writes a few bytes of its own now and then: 32 B on a non-aggregator rank, seen here)."""
        if self.write_bytes is None:
            return None
        floor = max(WRITER_MIN_BYTES, sum(self.write_bytes) / max(1, len(self.write_bytes)) / 16)
        return sum(1 for b in self.write_bytes if b > floor)

    @property
    def ranks(self) -> int | None:
        return None if self.write_bytes is None else len(self.write_bytes)

    def loaded(self, kind: str) -> set[str]:
        return {c.partition(":")[2] for c in self.components or () if c.startswith(f"{kind}:")}


def _state(state: str, how: str, requested: str, observed: Any = None) -> dict[str, Any]:
    return {"state": state, "how": how, "requested": requested, "observed": observed}


def _io_component(mca: Mapping[str, str], ev: Evidence, default: str = "ompio") -> str:
    """The Open MPI io component that ran: seen in the loaded libraries, else the requested one, else ``default``
    (the launch's own selection; OMPIO when it makes none)."""
    if ev.loaded("fcoll"):
        return "ompio"
    io = ev.loaded("io")
    if io == {"romio321"} or (io and "ompio" not in io):
        return sorted(io)[0]
    return mca.get("io", default)


def _writers_check(key: str, value: str, wanted: int | None, ev: Evidence) -> dict[str, Any]:
    """Compare the ranks that wrote with ``wanted`` (None: "fewer than all ranks", i.e. aggregation on)."""
    writers, ranks = ev.writers, ev.ranks
    if writers is None or ranks is None:
        return _state(NOT_VERIFIABLE, "no per-rank write counters for this run", value)
    if not ev.collective_shared:
        return _state(NOT_VERIFIABLE, "independent writes or a file per process: no aggregation to observe", value)
    seen = f"{writers} of {ranks} ranks wrote ({_COUNTER})"
    if wanted is None:
        if ranks == 1:
            return _state(NOT_VERIFIABLE, f"one rank: aggregation cannot be told apart ({seen})", value, writers)
        ok = writers < ranks
    elif min(wanted, ranks) == ranks and writers == ranks and key != "romio_cb_write" and "fcoll" not in key:
        return _state(NOT_VERIFIABLE, f"{seen}: as many aggregators as ranks looks the same as no aggregation",
                      value, writers)
    else:
        ok = writers == min(wanted, ranks)
    return _state(IN_EFFECT if ok else NOT_IN_EFFECT, seen, value, writers)


def _aggregation(key: str, value: str, ev: Evidence, disabled: bool) -> dict[str, Any] | None:
    """Settings the writers count proves; None for the others."""
    low = str(value).strip().lower()
    if key in ("cb_nodes", f"{MCA_PREFIX}io_ompio_num_aggregators"):
        if disabled:
            return _state(NOT_VERIFIABLE, "aggregation is switched off by another setting of this run", value)
        try:
            return _writers_check(key, value, int(low), ev)
        except ValueError:
            return _state(NOT_IN_EFFECT, f"{value!r} is not a number of aggregators", value)
    if key == "romio_cb_write" and low in ("enable", "disable"):
        return _writers_check(key, value, ev.ranks if low == "disable" else None, ev)
    if key == f"{MCA_PREFIX}fcoll" and low == "individual":
        return _writers_check(key, value, ev.ranks, ev)
    return None


def effect_of_settings(info: Mapping[str, str], mca: Mapping[str, str], ev: Evidence, io_default: str = "ompio",
                       via_file: bool = False) -> dict[str, dict[str, Any]]:
    """Per requested setting (MPI_Info keys, and ``mca:<name>`` for Open MPI MCA parameters):
    ``{"state": in effect | not in effect | not passed | not verifiable, "how": ..., "requested": ...,
    "observed": ...}``. ``via_file``: the MPI_Info keys went into a ROMIO_HINTS file (a command), not MPI_Info."""
    out: dict[str, dict[str, Any]] = {}
    ompi = ev.library == "openmpi"
    io = _io_component(mca, ev, io_default) if ompi else ""
    disabled = (str(info.get("romio_cb_write", "")).lower() == "disable" and (not ompi or io == "romio321")) or \
        (str(mca.get("fcoll", "")).lower() == "individual" and io == "ompio")
    report = ineffective_hints(info, ev.reported) if ev.reports_real_values and (not ompi or io == "romio321") else None
    for key, value in info.items():
        if ompi and io == "ompio" and via_file:
            out[key] = _state(NOT_PASSED, "written to a ROMIO_HINTS file, which OMPIO never reads (only ROMIO "
                                          "does); a command under OMPIO gets hints only through its own MPI_Info",
                              value)
            continue
        if ompi and io == "ompio" and key in ROMIO_KEYS:
            out[key] = _state(NOT_IN_EFFECT, "OMPIO ran, and it has no such hint (a ROMIO hint; Open MPI's MPI-IO "
                                             "documentation)", value)
            continue
        found = _aggregation(key, value, ev, disabled)
        if found is not None and found["state"] != NOT_VERIFIABLE:
            bad = (report or {}).get(key)
            if found["state"] == NOT_IN_EFFECT and bad:  # ROMIO's report says why (e.g. cb_config_list=*:1)
                found["how"] += f"; {bad['why']}"
            if ev.judged:
                found["how"] += f"; {ev.judged}"
            out[key] = found
        elif report is not None and key in ev.disagree:
            values = ", ".join(str(v) for v in ev.disagree[key])
            out[key] = _state(NOT_VERIFIABLE, f"the opens ROMIO printed disagree ({key} = {values}); {ev.judged}",
                              value)
        elif report is not None:
            bad = report.get(key)
            how = "ROMIO's own report of its hints (real values, not an echo)" + (f"; {ev.judged}" if ev.judged else "")
            out[key] = (_state(NOT_IN_EFFECT, f"{how}: {bad['why']}", value, bad.get("in_effect")) if bad
                        else _state(IN_EFFECT, how, value, ev.reported.get(key)))
        else:
            out[key] = found or _state(NOT_VERIFIABLE, "the library only echoes the requested keys" if ompi
                                       else "the MPI library reports no hints for this run", value)
    for name, value in mca.items():
        key = f"{MCA_PREFIX}{name}"
        if not ompi:
            out[key] = _state(NOT_IN_EFFECT, f"the run's MPI is {ev.library or 'unknown'}, not Open MPI: it reads "
                                             "no MCA parameters", value)
        elif name == "io":
            loaded = ev.loaded("io")
            out[key] = (_state(IN_EFFECT if io == value else NOT_IN_EFFECT, "the io component the process loaded "
                               "(/proc/self/maps)", value, io) if loaded or ev.loaded("fcoll")
                        else _state(NOT_VERIFIABLE, "no loaded io component seen (components built in, or no file "
                                                    "opened)", value))
        elif name in OMPIO_MCA and io != "ompio":
            out[key] = _state(NOT_IN_EFFECT, f"the io component {io} ran: OMPIO's parameters do nothing", value)
        elif name == "fcoll" and ev.loaded("fcoll") and len(ev.loaded("fcoll")) == 1:
            got = sorted(ev.loaded("fcoll"))[0]
            found = _aggregation(key, value, ev, False)
            if found is not None and found["state"] != NOT_VERIFIABLE:
                out[key] = found
            else:
                out[key] = _state(IN_EFFECT if got == value else NOT_IN_EFFECT,
                                  "the only fcoll component the process loaded (/proc/self/maps)", value, got)
        else:
            found = _aggregation(key, value, ev, disabled)
            out[key] = found or _state(NOT_VERIFIABLE, "no observable effect on this run (only its speed)", value)
    return out


def not_in_effect(verification: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """The settings verified not in effect, in the shape of ``hints_not_in_effect``."""
    return {k: {"requested": v.get("requested"), "in_effect": None if v.get("observed") is None else str(v["observed"]),
                "why": v.get("how")}
            for k, v in verification.items() if v.get("state") in (NOT_IN_EFFECT, NOT_PASSED)}


def took_effect(verification: Mapping[str, Mapping[str, Any]]) -> bool | None:
    """False if any setting is verified not in effect or was not passed, None if any cannot be verified, else
    True."""
    states = {v.get("state") for v in verification.values()}
    if NOT_IN_EFFECT in states or NOT_PASSED in states:
        return False
    return None if NOT_VERIFIABLE in states else True


def library_of(version: str) -> str:
    """``MPI_Get_library_version`` text -> mpich | cray-mpich | openmpi | intel-mpi | mvapich | spectrum-mpi | ""
    (``systems.parse_library_version``, the one classifier of MPI libraries)."""
    library = parse_library_version(version).library
    return "" if library == "unknown" else library


def effect_of_run(info: Mapping[str, str], mca: Mapping[str, str], library: str, record: Mapping[str, Any] | None,
                  printed: PrintedHints, io_default: str = "ompio") -> dict[str, dict[str, Any]]:
    """The verification of one run: a built-in kernel's own (its ``record``), else from the hints the library
    printed (``ROMIO_PRINT_HINTS``/``MPICH_MPIIO_HINTS_DISPLAY``: ROMIO's real values, judged on the widest
    open: ``judge_printed``) for a command whose MPI is ``library`` (the system's flavour); nothing printed
    leaves every MPI-IO hint not verifiable."""
    if record is not None and isinstance(record.get("verification"), dict):
        return dict(record["verification"])
    if not info and not mca:
        return {}
    return effect_of_settings(info, mca, Evidence(library, dict(printed.hints), bool(printed.hints),
                                                  judged=printed.judged, disagree=dict(printed.disagree)),
                              io_default, via_file=True)

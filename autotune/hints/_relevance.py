"""Settings that cannot act, so are never exported: aggregator hints without collective buffering, the BB
node count in DataWarp private mode."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

# Settings that only shape collective buffering (the aggregators and their buffer).
AGGREGATOR_SETTINGS = ("mpiio.cb_nodes", "mpiio.cb_buffer_size", "mpiio.cb_config_list", "cray.cb_nodes_multiplier",
                       "cray.cb_write_lock_mode")


def inert(config: Mapping[str, Any], phases: Sequence[str] = ("write",)) -> dict[str, str]:
    """The settings of ``config`` that cannot act for an app with ``phases``, each with why.

    Aggregator settings act only through collective buffering: with ``romio_cb_write=disable`` they are
    inert for writes, and for the whole app when it does not read or ``romio_cb_read=disable`` too.
    """
    out: dict[str, str] = {}
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

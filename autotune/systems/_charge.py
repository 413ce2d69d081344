"""A site's charge rates (``charge:`` in a system profile): what a compute node-hour and a burst-buffer
node-hour cost, in the site's accounting unit. Used by campaigns with ``objective.cost``.

Without a ``charge:`` section a profile gets ``DEFAULT_CHARGE``: one BB node-hour is charged as one compute
node-hour (a DataWarp server is a node of the same machine). That is an assumption, not a site's rate:
the profile's ``source`` says where each figure comes from and what the site must confirm.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from autotune._yaml import check_keys, plain_text
from autotune.errors import ConfigError

CHARGE_KEYS = frozenset({"unit", "node_hour", "bb_node_hour", "source"})


@dataclass(frozen=True)
class Charge:
    """Charge per compute node-hour and per BB node-hour, in ``unit`` (e.g. "NERSC hours")."""

    unit: str = "node-hours"
    node_hour: float = 1.0
    bb_node_hour: float = 1.0
    source: str = "default: no site rate given; one BB node-hour charged as one compute node-hour (assumed)"

    @property
    def exchange_rate(self) -> float:
        """How many compute node-hours one BB node-hour is worth at these rates."""
        return self.bb_node_hour / self.node_hour


DEFAULT_CHARGE = Charge()


def _rate(value: Any, where: str, positive: bool) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or value < 0 \
            or (positive and value == 0) or value == float("inf"):
        raise ConfigError(f"{where}: {value!r} is not a {'positive' if positive else 'non-negative'} number")
    return float(value)


def parse_charge(data: Any, where: str) -> Charge:
    """``charge: {unit, node_hour, bb_node_hour, source}``; absent keys take ``DEFAULT_CHARGE``'s values."""
    if data is None:
        return DEFAULT_CHARGE
    d = check_keys(data, CHARGE_KEYS, where)
    return Charge(
        unit=plain_text(d.get("unit", DEFAULT_CHARGE.unit), f"{where}.unit"),
        node_hour=_rate(d.get("node_hour", DEFAULT_CHARGE.node_hour), f"{where}.node_hour", positive=True),
        bb_node_hour=_rate(d.get("bb_node_hour", DEFAULT_CHARGE.bb_node_hour), f"{where}.bb_node_hour", positive=False),
        source=plain_text(d.get("source", "the system profile"), f"{where}.source"),
    )

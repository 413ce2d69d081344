"""Which requested MPI-IO hints did not take effect (pure: no MPI import)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from autotune.errors import ConfigError
from autotune.units import parse_size

_ON = {"enable", "enabled", "true", "yes", "on"}
_OFF = {"disable", "disabled", "false", "no", "off"}
_AUTO = {"automatic", "auto"}
_STRIPING = {"striping_factor", "striping_unit", "start_iodevice"}
_DEFAULT_CB_CONFIG = "*:1"


def _norm(value: str) -> str | int:
    """Canonical form: enable/disable/automatic words, sizes as ints, else the stripped string."""
    text = str(value).strip()
    low = text.lower()
    if low in _ON:
        return "enable"
    if low in _OFF:
        return "disable"
    if low in _AUTO:
        return "automatic"
    try:
        return parse_size(text)
    except ConfigError:
        return text


def count_aggregators(in_effect: Mapping[str, str]) -> int | None:
    """Number of ranks in ``romio_aggregator_list`` (``"0 1 "`` -> 2), or None when not reported."""
    listed = in_effect.get("romio_aggregator_list")
    if listed is None:
        return None
    return len(listed.split())


def _check_cb_nodes(requested: str, in_effect: Mapping[str, str]) -> dict[str, Any] | None:
    used = count_aggregators(in_effect)
    reported = in_effect.get("cb_nodes")
    actual = used if used is not None else (int(reported) if reported is not None and str(reported).isdigit() else None)
    try:
        wanted = int(_norm(requested))
    except ValueError:
        return {"requested": requested, "in_effect": reported, "why": "cb_nodes is not an integer"}
    if actual == wanted:
        return None
    if actual is None:
        return {"requested": requested, "in_effect": None, "why": "the MPI library reports no cb_nodes"}
    config = in_effect.get("cb_config_list", _DEFAULT_CB_CONFIG)
    if config.strip().endswith(":1") and actual < wanted:
        why = (f"ROMIO used {actual} aggregator(s): cb_config_list={config} allows one aggregator per node; "
               "add cb_config_list=*:* for more")
    else:
        why = (f"ROMIO used {actual} aggregator(s): cb_nodes is capped by the number of processes "
               f"and by cb_config_list={config}")
    return {"requested": requested, "in_effect": str(actual), "why": why}


def ineffective_hints(requested: Mapping[str, str], in_effect: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    """Requested hints whose value did not take effect: ``{key: {"requested", "in_effect", "why"}}``.

    ``in_effect`` is what ``MPI.File.Get_info()`` returned. ``cb_nodes`` is checked against the
    aggregators really used (``romio_aggregator_list``); striping hints are not in effect on a
    file system other than Lustre, even when ROMIO echoes them back.
    """
    fs_type = in_effect.get("romio_filesystem_type", "")
    out: dict[str, dict[str, Any]] = {}
    for key, value in requested.items():
        got = in_effect.get(key)
        if key == "cb_nodes":
            problem = _check_cb_nodes(value, in_effect)
            if problem:
                out[key] = problem
            continue
        if key in _STRIPING and fs_type and not fs_type.upper().startswith("LUSTRE"):
            out[key] = {"requested": value, "in_effect": got,
                        "why": f"file system is {fs_type.split(':')[0]}, not Lustre: striping is ignored"}
            continue
        if got is None:
            out[key] = {"requested": value, "in_effect": None,
                        "why": "not reported by the MPI library: unknown key or ignored by this driver"}
        elif _norm(value) != _norm(got):
            out[key] = {"requested": value, "in_effect": got,
                        "why": f"the MPI library set {key}={got}"}
    return out

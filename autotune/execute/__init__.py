"""Executors: where trials and campaigns run (serial here, or Ray: local on 127.0.0.1, or a cluster)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from autotune.execute._base import (
    EXECUTORS,
    BaseExecutor,
    campaign_resource,
    executor_names,
    fs_resource,
    get_executor,
    make_executor,
)

if TYPE_CHECKING:
    from autotune.campaign import Campaign, LoopResult, Runtime
    from autotune.execute._ray import RayExecutor, local_resources
    from autotune.execute._serial import SerialExecutor
    from autotune.tracking import BaseTracker

# The executors load the campaign (and with it Optuna and NumPy): imported on first use, as EXECUTORS loads them,
# so that listing their names (the CLI parser of every command, `autotune ask` included) stays light.
_LAZY = {"RayExecutor": ("autotune.execute._ray", "RayExecutor"),
         "local_resources": ("autotune.execute._ray", "local_resources"),
         "SerialExecutor": ("autotune.execute._serial", "SerialExecutor")}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module, attr = _LAZY[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def run_with_executor(c: Campaign, rt: Runtime | None = None, *, tracker: BaseTracker | None = None,
                      command_line: str = "", **kw: Any) -> LoopResult:
    """Run campaign ``c`` with the executor its ``executor:`` mapping names; returns the ``LoopResult``."""
    with make_executor(c.executor) as ex:
        return ex.run_campaign(c, rt, tracker=tracker, command_line=command_line, **kw)


__all__ = [
    "EXECUTORS", "BaseExecutor", "RayExecutor", "SerialExecutor", "campaign_resource", "executor_names", "fs_resource",
    "get_executor", "local_resources", "make_executor", "run_with_executor",
]

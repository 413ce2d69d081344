"""The executor plug-in point: where a campaign's trials (or many whole campaigns) run."""

from __future__ import annotations

import abc
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

from autotune._registry import Plugin, Registry

if TYPE_CHECKING:
    from autotune.campaign import Campaign, LoopResult, Runtime
    from autotune.tracking import BaseTracker

T = TypeVar("T")
R = TypeVar("R")


def fs_resource(system: str, filesystem: str) -> str:
    """The Ray custom resource (capacity 1) that serialises real I/O on one file system."""
    return "autotune_fs_" + re.sub(r"[^A-Za-z0-9_]", "_", f"{system}_{filesystem}")


def campaign_resource(c: Campaign) -> str | None:
    """The file-system resource a campaign's trials hold, or None for model campaigns (no real I/O)."""
    if str(c.launcher.get("name")) == "model":
        return None
    return fs_resource(c.system.name, c.fs.name)


class BaseExecutor(Plugin, abc.ABC):
    """Runs campaigns. Subclasses set ``name`` and ``schema`` (their options) and implement the two methods.

    Built configured: ``get_executor(name, options)`` returns an instance whose options were checked at
    construction (``EXECUTORS.get(name)`` is the class).

    Contract:
    - ``run_campaign(c, rt, tracker=..., command_line=...)`` runs (or resumes) one campaign until its
      budget is spent and returns the same ``LoopResult`` as the serial ``CampaignLoop``; the study
      (Optuna storage) stays in the calling process and is the source of truth.
    - ``map(fn, items)`` applies a picklable module-level ``fn`` to each item (e.g. whole campaigns)
      and returns the results in the order of ``items``; ``resources`` may name, per item, a custom
      resource the task must hold (one file system's lock), so real I/O on one target never overlaps.
    - Two trials that do real I/O on the same file system never run at the same time.
    - ``close()`` releases what the executor started (idempotent); executors are context managers.
    - Options are validated at construction (the shared check on ``schema``); an unknown key or name is a one-line error.
    """

    def __init__(self, options: dict[str, Any] | None = None, where: str = "executor") -> None:
        opts = self.check_options(options, where, also=("name",))
        self.options = {k: v for k, v in opts.items() if k != "name"}

    @abc.abstractmethod
    def run_campaign(self, c: Campaign, rt: Runtime | None = None, *, tracker: BaseTracker | None = None,
                     command_line: str = "", out: TextIO | None = None) -> LoopResult:
        """Run one campaign; trials may run in parallel where the target allows it."""

    @abc.abstractmethod
    def map(self, fn: Callable[[T], R], items: Sequence[T], *, resources: Sequence[str | None] | None = None,
            progress: Callable[[int, int], None] | None = None,
            on_result: Callable[[int, R], None] | None = None) -> list[R]:
        """``[fn(x) for x in items]``, possibly in parallel; ``on_result(index, result)`` as each result
        arrives (so a caller can save it before the rest finish), then ``progress(done, total)``."""

    def close(self) -> None:
        """Release resources (nothing by default)."""

    def __enter__(self) -> BaseExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# The built-in executors, each registered once, by name, imported when first asked for (Ray itself is imported
# by the Ray executor only when it starts).
EXECUTORS: Registry[type[BaseExecutor]] = Registry("executor", base=BaseExecutor)
EXECUTORS.register_lazy("serial", "autotune.execute._serial:SerialExecutor")
EXECUTORS.register_lazy("ray", "autotune.execute._ray:RayExecutor")


def executor_names() -> list[str]:
    return EXECUTORS.names()


def get_executor(name: str, options: dict[str, Any] | None = None, where: str = "executor") -> BaseExecutor:
    """The executor called ``name``, built with ``options`` (checked against its ``schema``); an unknown name or
    option is a one-line error. ``EXECUTORS.get(name)`` is its class."""
    return EXECUTORS.get(name)(options, where)


def make_executor(spec: dict[str, Any] | str | None) -> BaseExecutor:
    """An executor from a campaign's ``executor:`` mapping (``{name: ray, address: ...}``) or a name."""
    d = {"name": spec} if isinstance(spec, str) else dict(spec or {"name": "serial"})
    return get_executor(str(d.get("name", "serial")), d)

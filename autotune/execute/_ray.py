"""The Ray executor: a local Ray instance on 127.0.0.1 by default, or a cluster ``address``.

One campaign: up to ``parallel`` trials at once, each a Ray task; a trial that does real I/O holds
its file system's custom resource (capacity 1), so trials on one target never overlap while trials
on different targets (Lustre and the burst buffer) may. Model campaigns hold no such resource.
Many campaigns: ``map`` runs one task per campaign (``run_campaign_task``), with progress.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, TextIO, TypeVar

from autotune._extras import require
from autotune._paths import available
from autotune._registry import Option
from autotune.campaign import Runtime, run_trial
from autotune.errors import ConfigError
from autotune.execute._base import BaseExecutor, campaign_resource, fs_resource
from autotune.execute._parallel import ParallelLoop
from autotune.systems import load_system

if TYPE_CHECKING:
    from autotune.campaign import Campaign, LoopResult, TrialOutcome
    from autotune.tracking import BaseTracker

T = TypeVar("T")
R = TypeVar("R")
_RUNTIMES: dict[str, Any] = {}


LOOPBACK = "127.0.0.1"


def loopback_only() -> None:
    """Make a local Ray bind every server (GCS, raylet, workers, agents) to 127.0.0.1.

    Ray 2.x binds its gRPC servers to all interfaces unless the node's address is the loopback one,
    and resolves "127.0.0.1" given to ``ray.init`` to the machine's external address unless
    ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER`` is off (its single-machine mode). The variable must be
    set before ``ray`` is imported (Ray's child processes inherit it); if ``ray`` was imported
    already, its constant is updated too.
    """
    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    constants = sys.modules.get("ray._private.ray_constants")
    if constants is not None and hasattr(constants, "ENABLE_RAY_CLUSTER"):
        setattr(constants, "ENABLE_RAY_CLUSTER", False)  # noqa: B010 - a module constant mypy cannot see


def _trial_task(c: Campaign, number: int, config: dict[str, Any], is_default: bool, retry_of: int | None,
                incumbent: float | None) -> TrialOutcome:
    """One trial on a Ray worker (the Runtime is built once per worker and campaign)."""
    key = f"{c.name}|{c.study}|{c.storage}|{c.source}"
    rt = _RUNTIMES.get(key)
    if rt is None:
        if len(_RUNTIMES) >= 16:
            _RUNTIMES.clear()
        rt = _RUNTIMES[key] = Runtime.build(c)
    return run_trial(rt, number, config, is_default, c.objective.repeats, retry_of=retry_of, incumbent=incumbent)


def _apply(fn: Callable[[Any], Any], item: Any) -> Any:
    return fn(item)


def local_resources() -> dict[str, float]:
    """One capacity-1 resource per file system of every known system profile."""
    out: dict[str, float] = {}
    for name in available("search_spaces/systems"):
        try:
            profile = load_system(name)
        except Exception:  # noqa: BLE001 - a broken profile must not stop the executor
            continue
        for fs in profile.filesystems:
            out[fs_resource(profile.name, fs)] = 1.0
    return out


class RayExecutor(BaseExecutor):
    """Trials or whole campaigns as Ray tasks. Options: ``address``, ``num_cpus``, ``parallel``."""

    name: ClassVar[str] = "ray"
    schema = (Option.text("address", "a running cluster (default: start one on 127.0.0.1)"), Option.integer("num_cpus"),
              Option.integer("parallel", "trials in flight"), Option.mapping("resources", "custom resources of the local node"))

    def __init__(self, options: dict[str, Any] | None = None, where: str = "executor") -> None:
        super().__init__(options, where)
        o = self.options
        self.address: str | None = str(o["address"]) if o.get("address") else None
        self.num_cpus = int(o.get("num_cpus") or os.cpu_count() or 1)
        self.parallel = int(o.get("parallel") or self.num_cpus)
        if self.num_cpus < 1 or self.parallel < 1:
            raise ConfigError(f"{where}: num_cpus and parallel must be >= 1")
        self.extra_resources = {str(k): float(v) for k, v in dict(o.get("resources") or {}).items()}
        self._started = False

    # --- Ray instance --------------------------------------------------------------------------
    def start(self, needed: Sequence[str] = ()) -> None:
        """Connect to ``address`` or start a private local instance (127.0.0.1 only, no token auth)."""
        ray = require("ray", "ray", "the ray executor")
        if not self.address:
            loopback_only()

        if not ray.is_initialized():
            if self.address:
                ray.init(address=self.address, include_dashboard=False, log_to_driver=False,
                         configure_logging=False)
            else:
                os.environ.setdefault("RAY_AUTH_MODE", "disabled")
                path = os.pathsep.join(p for p in (os.getcwd(), os.environ.get("PYTHONPATH", "")) if p)
                os.environ["PYTHONPATH"] = path  # workers import the caller's modules (experiments/evaluation/)
                res = {**local_resources(), **{r: 1.0 for r in needed if r}, **self.extra_resources}
                ray.init(num_cpus=self.num_cpus, resources=res, include_dashboard=False, log_to_driver=False,
                         configure_logging=False, _node_ip_address=LOOPBACK, dashboard_host=LOOPBACK,
                         namespace="autotune")
                self._started = True
                node_ip = ray.util.get_node_ip_address()
                if node_ip != LOOPBACK:  # Ray would listen on (and advertise) an external address
                    self.close()
                    raise ConfigError(f"executor: the local Ray instance took the address {node_ip}, not {LOOPBACK}: "
                                      "refusing to run it on a shared network (set executor.address to use a cluster)")
        have = ray.cluster_resources()
        missing = sorted(r for r in needed if r and have.get(r, 0) < 1)
        if missing:
            raise ConfigError(f"executor: the Ray cluster has no resource {missing[0]!r}: start one node with "
                              f"`ray start ... --resources='{{\"{missing[0]}\": 1}}'` (capacity 1, one node only)")

    def close(self) -> None:
        if self._started:
            import ray  # lazy: optional Ray

            ray.shutdown()
            self._started = False

    # --- one campaign, parallel trials -----------------------------------------------------------
    def run_campaign(self, c: Campaign, rt: Runtime | None = None, *, tracker: BaseTracker | None = None,
                     command_line: str = "", out: TextIO | None = None) -> LoopResult:
        import ray  # lazy: optional Ray

        res = campaign_resource(c)
        self.start([res] if res else [])
        task = ray.remote(_trial_task).options(num_cpus=1, resources={res: 1.0} if res else {}, max_retries=0)
        c_ref = ray.put(c)

        def submit(number: int, config: dict[str, Any], is_default: bool, retry_of: int | None,
                   incumbent: float | None) -> Any:
            return task.remote(c_ref, number, dict(config), is_default, retry_of, incumbent)

        def wait(handles: Sequence[Any]) -> list[tuple[Any, TrialOutcome]]:
            done, _ = ray.wait(list(handles), num_returns=1)
            return [(h, ray.get(h)) for h in done]

        parallel = self.parallel if res is None else 1
        loop = ParallelLoop(c, submit=submit, wait=wait, parallel=parallel, runtime=rt, tracker=tracker,
                            command_line=command_line, out=out)
        return loop.run()

    # --- many tasks (whole campaigns) -------------------------------------------------------------
    def map(self, fn: Callable[[T], R], items: Sequence[T], *, resources: Sequence[str | None] | None = None,
            progress: Callable[[int, int], None] | None = None,
            on_result: Callable[[int, R], None] | None = None) -> list[R]:
        import ray  # lazy: optional Ray

        needed = [r for r in (resources or []) if r]
        self.start(sorted(set(needed)))
        remote = ray.remote(_apply)
        fn_ref = ray.put(fn)
        refs = []
        for i, item in enumerate(items):
            r = resources[i] if resources else None
            refs.append(remote.options(num_cpus=1, resources={r: 1.0} if r else {}, max_retries=0).remote(fn_ref, item))
        index = {ref: i for i, ref in enumerate(refs)}
        out: list[Any] = [None] * len(refs)
        left = list(refs)
        while left:
            done, left = ray.wait(left, num_returns=1)
            for ref in done:
                out[index[ref]] = ray.get(ref)
                if on_result:
                    on_result(index[ref], out[index[ref]])
            if progress:
                progress(len(refs) - len(left), len(refs))
        return out

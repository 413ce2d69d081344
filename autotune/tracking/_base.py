"""The tracker plug-in point: observers of a campaign (never in control of it)."""

from __future__ import annotations

import abc
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from autotune._registry import Plugin, Registry


@dataclass
class TrackedTrial:
    """What a tracker sees of one finished trial."""

    number: int
    state: str  # "COMPLETE" | "FAIL" (a configuration that breaks a rule is never run, never tracked)
    config: dict[str, Any]
    value: float | None
    repetitions: list[float | None]
    metric: str
    is_default: bool = False
    hints: dict[str, str] = field(default_factory=dict)
    hints_in_effect: dict[str, Any] = field(default_factory=dict)
    hints_not_in_effect: dict[str, Any] = field(default_factory=dict)
    artifacts: dict[str, str] = field(default_factory=dict)  # name -> text
    error: str | None = None
    duration: float = 0.0
    extra_metrics: dict[str, float] = field(default_factory=dict)  # objective.cost: cost, node_hours, ...


@dataclass
class CampaignInfo:
    name: str
    study: str
    storage: str
    app: str
    system: str
    filesystem: str
    launcher: str
    space: str
    objective: str
    command_line: str = ""
    campaign_text: str = ""


class BaseTracker(Plugin, abc.ABC):
    """Observes a campaign. Subclasses set ``name`` and ``schema`` (their options, the keys of the campaign's
    ``tracking:`` besides ``name`` and ``enabled``) and take those options as keyword arguments.

    Built configured: ``get_tracker(name, options)`` returns an instance whose options were checked against its
    ``schema`` (``TRACKERS.get(name)`` is the class).

    Contract (checked by ``autotune.testing.TrackerContract``):
    ``start`` may be called again for the same study (a resumed campaign continues the same record);
    ``log_trial`` records one trial with one metric value per repetition; ``finish`` closes the record.
    A tracker never raises into the campaign: ``SafeTracker`` turns its errors into warnings.
    """

    @abc.abstractmethod
    def start(self, info: CampaignInfo) -> None:
        """Open (or reopen) the campaign's record."""

    @abc.abstractmethod
    def log_trial(self, record: TrackedTrial) -> None:
        """Record one finished trial."""

    @abc.abstractmethod
    def finish(self, summary: Mapping[str, Any]) -> None:
        """Record the campaign's summary (best value, best configuration, default value)."""

    def abort(self, reason: str) -> None:
        """The campaign stopped on an error (e.g. a full disk): close the record as failed, not RUNNING."""


class NullTracker(BaseTracker):
    """Tracks nothing (``tracking: {enabled: false}``)."""

    name: ClassVar[str] = "none"

    def __init__(self, **options: Any) -> None:
        return None

    def start(self, info: CampaignInfo) -> None:
        return None

    def log_trial(self, record: TrackedTrial) -> None:
        return None

    def finish(self, summary: Mapping[str, Any]) -> None:
        return None


class SafeTracker(BaseTracker):
    """Wraps a tracker so that its failures are one warning each and never stop the campaign.

    A tracker that cannot start, or fails ``GIVE_UP`` times in a row, is switched off for the rest of the
    campaign (each call to a dead tracking server would cost its whole timeout again).
    """

    name: ClassVar[str] = "safe"
    GIVE_UP = 3

    def __init__(self, inner: BaseTracker) -> None:
        self.inner = inner
        self.failures = 0
        self.in_a_row = 0
        self.off = False

    def _call(self, what: str, *args: Any) -> None:
        if self.off:
            return
        try:
            getattr(self.inner, what)(*args)
            self.in_a_row = 0
        except Exception as exc:  # noqa: BLE001 - observers must not break the campaign
            self.failures += 1
            self.in_a_row += 1
            self.off = what == "start" or self.in_a_row >= self.GIVE_UP
            print(f"autotune: warning: tracker {self.inner.name} {what} failed: {type(exc).__name__}: "
                  f"{str(exc).splitlines()[0] if str(exc) else ''}"
                  + ("; tracking is off for the rest of this campaign" if self.off else ""), file=sys.stderr)

    def start(self, info: CampaignInfo) -> None:
        self._call("start", info)

    def log_trial(self, record: TrackedTrial) -> None:
        self._call("log_trial", record)

    def finish(self, summary: Mapping[str, Any]) -> None:
        self._call("finish", summary)

    def abort(self, reason: str) -> None:
        self._call("abort", reason)


DEFAULT_TRACKER = "mlflow"
TRACKERS: Registry[type[BaseTracker]] = Registry("tracker", "tracking.name", base=BaseTracker)
TRACKERS.register_lazy("none", "autotune.tracking._base:NullTracker")
TRACKERS.register_lazy("mlflow", "autotune.tracking._mlflow:MlflowTracker")  # MLflow is imported when asked for


def get_tracker(name: str, options: Mapping[str, Any] | None = None, where: str = "tracking") -> BaseTracker:
    """The tracker called ``name`` (``TRACKERS``: mlflow, none), built with ``options`` (checked against its
    ``schema``); an unknown name or option is a one-line error. ``TRACKERS.get(name)`` is its class."""
    cls = TRACKERS.get(name)
    return cls(**cls.check_options(options, where))


def active_tracker(tracking: Mapping[str, Any]) -> str | None:
    """The name of the tracker a campaign's ``tracking:`` turns on (default mlflow), or None when tracking is off:
    ``enabled: false`` or ``name: none``. Every "is tracking on?" question asks this (no tracker class is loaded)."""
    if not tracking.get("enabled", True):
        return None
    name = str(tracking.get("name", DEFAULT_TRACKER))
    return None if name == NullTracker.name else name


def campaign_tracker(tracking: Mapping[str, Any], *, experiment: str, uri: str, workdir: Path) -> BaseTracker | None:
    """The tracker a campaign's ``tracking:`` names (``name``, default mlflow), or None when it tracks nothing
    (``enabled: false`` or ``name: none``). ``experiment``, ``uri`` and ``workdir / "mlartifacts"`` are the
    defaults of the options the tracker takes (the default store lives in ``workdir``, created here)."""
    name = active_tracker(tracking)
    if name is None:
        return None
    cls = TRACKERS.get(name, "tracking.name")
    if cls is NullTracker:
        return None
    workdir.mkdir(parents=True, exist_ok=True)
    defaults = {"uri": uri, "experiment": experiment, "artifacts": str(workdir / "mlartifacts")}
    given = {k: v for k, v in tracking.items() if k not in ("name", "enabled") and v is not None}
    return get_tracker(name, {**{k: v for k, v in defaults.items() if k in cls.option_names()}, **given})

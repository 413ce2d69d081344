"""The launcher plug-in point: run one repetition of an app with one configuration."""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from autotune._registry import Plugin, Registry
from autotune._result import RunResult
from autotune.hints import Settings
from autotune.pattern import IOPattern
from autotune.systems import FileSystem, SystemProfile


@dataclass(frozen=True)
class AppSpec:
    """What to run: a built-in kernel (``kernel`` + ``args``) or a user command (argv template).

    ``command`` items may use ``{data_dir}``, ``{run_dir}``, ``{ranks}``, ``{nodes}``, ``{trial}``,
    ``{repetition}``, ``{hints_file}``: each item is formatted on its own and passed as one argv
    element, never through a shell. Parameter values reach the app only as environment variables
    and hint files.
    """

    name: str
    pattern: IOPattern
    kernel: str | None = None
    args: Mapping[str, Any] = field(default_factory=dict)
    command: tuple[str, ...] = ()
    mpiexec: bool = True
    env: Mapping[str, str] = field(default_factory=dict)
    hint_files: tuple[str, ...] = ("*",)
    cwd: Path | None = None  # where a command runs (default: the campaign file's directory)
    reads: tuple[str, ...] = ()  # parameters a command reads from AUTOTUNE_PARAM_* itself (e.g. hdf5.alignment)

    @property
    def ranks(self) -> int:
        return self.pattern.ranks

    @property
    def nodes(self) -> int:
        return self.pattern.nodes


@dataclass(frozen=True)
class RunRequest:
    """One repetition of one trial. ``settings`` are exactly the hints to apply (none for the default)."""

    campaign: str
    trial: int
    repetition: int
    app: AppSpec
    system: SystemProfile
    fs: FileSystem
    config: Mapping[str, Any]
    settings: Settings
    run_dir: Path
    data_dir: Path
    timeout: float
    seed: int = 0
    is_default: bool = False
    previous_run_dir: Path | None = None  # the same repetition of an interrupted earlier attempt
    time_limit: float | None = None  # the scheduler's limit for a job, when it differs from timeout


class BaseLauncher(Plugin, abc.ABC):
    """Runs repetitions of an app. Subclasses set ``name`` and ``schema`` (their options) and implement ``run``.

    Built configured: ``get_launcher(name, options)`` returns an instance whose options were checked at
    construction (``LAUNCHERS.get(name)`` is the class).

    Contract (checked by ``autotune.testing.LauncherContract``):
    - ``run`` never raises for a failure of the app: a non-zero exit, a crash, a hang past
      ``request.timeout`` or a scheduler failure is a ``RunResult`` with ``error`` set (one line) and the
      app's stderr kept; it raises ``AutotuneError`` only for misconfiguration of the launcher itself.
    - the app's time limit is enforced by the launcher (nothing outlives ``run``);
    - the app writes its data under ``request.data_dir``; the launcher leaves nothing else behind
      except small logs under ``request.run_dir``;
    - ``run`` is safe to call again for the same (trial, repetition) after a crash of the campaign
      (``recover`` may return the earlier result instead of running twice);
    - ``describe`` returns what would be run (command line or job script) without running it;
    - ``preflight`` asks whatever runs the app whether the first trial (its repetitions) can run at all
      (a scheduler's dry run) before the campaign starts: it raises ``AutotuneError`` (one line, what to change) when it
      cannot, and returns a one-line note of what it checked (None when there is nothing to check);
    - ``cancel_active`` cancels what a campaign stopped on purpose still has queued or running (jobs,
      allocations) and says so; a killed campaign leaves them for ``recover`` to adopt.
    """

    runs_command: ClassVar[bool] = True  # False: the app's command never runs (model, replay), every parameter reaches it

    def __init__(self, options: Mapping[str, Any] | None = None, where: str = "launcher") -> None:
        self.options: dict[str, Any] = self.check_options(options, where)

    @abc.abstractmethod
    def run(self, request: RunRequest) -> RunResult:
        """Run one repetition and return its result (see the class contract)."""

    def run_many(self, requests: Sequence[RunRequest]) -> list[RunResult]:
        """Run the repetitions of one trial; launchers that can batch them (one job) override this."""
        return [self.run(r) for r in requests]

    def describe(self, request: RunRequest) -> str:
        """The command line or job script ``run`` would execute (for --dry-run and artifacts)."""
        return ""

    def preflight(self, requests: Sequence[RunRequest]) -> str | None:
        """Check, before the first trial, that its ``requests`` can run here (default: nothing to check)."""
        return None

    def cancel_active(self) -> list[str]:
        """Cancel the jobs still queued or running (a campaign stopped on purpose); one line per cancellation."""
        return []

    def recover(self, request: RunRequest) -> RunResult | None:
        """The result of this repetition from an interrupted attempt, if the launcher can find one.

        ``request.previous_run_dir`` is the run directory of the same repetition in the attempt that a
        killed campaign left behind; a launcher that submits jobs records them there so that a resumed
        campaign waits for (or collects) the job instead of submitting it twice.
        """
        return None

    def close(self) -> None:
        """Release resources (allocations, pools) at the end of a campaign."""


# The built-in launchers, each registered once, by name, imported when first asked for; a launcher outside the
# package is added the same way (``LAUNCHERS.register_lazy("name", "package.module:Class")``).
LAUNCHERS: Registry[type[BaseLauncher]] = Registry("launcher", base=BaseLauncher)
LAUNCHERS.register_lazy("local", "autotune.launch._local:LocalLauncher")
LAUNCHERS.register_lazy("model", "autotune.launch._model:ModelLauncher")
LAUNCHERS.register_lazy("replay", "autotune.launch._replay:ReplayLauncher")
LAUNCHERS.register_lazy("slurm", "autotune.launch._slurm:SlurmLauncher")
LAUNCHERS.register_lazy("slurm-step", "autotune.launch._slurm:SlurmStepLauncher")


def launcher_names() -> list[str]:
    return LAUNCHERS.names()


def get_launcher(name: str, options: Mapping[str, Any] | None = None, where: str = "launcher") -> BaseLauncher:
    """The launcher called ``name``, built with ``options`` (checked against its ``schema``); an unknown name or
    option is a one-line error. ``LAUNCHERS.get(name)`` is its class."""
    return LAUNCHERS.get(name)(options, where)

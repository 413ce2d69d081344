"""The launcher plug-in point: run one repetition of an app with one configuration."""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from autotune._yaml import check_keys
from autotune.errors import RegistryError
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


@dataclass
class RunResult:
    """What a repetition produced. A failed run has ``error`` set (one line) and keeps its stderr."""

    returncode: int | None
    stdout: str = ""
    stderr: str = ""
    wall_seconds: float = 0.0
    timed_out: bool = False
    error: str | None = None
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.error is None and self.returncode == 0 and not self.timed_out


class BaseLauncher(abc.ABC):
    """Runs repetitions of an app. Subclasses set ``name`` and ``option_keys`` and implement ``run``.

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

    name: ClassVar[str] = ""
    option_keys: ClassVar[frozenset[str]] = frozenset()
    runs_command: ClassVar[bool] = True  # False: the app's command never runs (model, replay), every parameter reaches it

    def __init__(self, options: Mapping[str, Any] | None = None, where: str = "launcher") -> None:
        self.options: dict[str, Any] = check_keys(dict(options or {}), self.option_keys, where)

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

    def close(self) -> None:  # noqa: B027 - optional hook, nothing to release by default
        """Release resources (allocations, pools) at the end of a campaign."""


_REGISTRY: dict[str, type[BaseLauncher]] = {}


def register_launcher(cls: type[BaseLauncher]) -> type[BaseLauncher]:
    """Class decorator adding a launcher to the registry under ``cls.name``."""
    if not cls.name:
        raise ValueError(f"{cls.__name__} has no name")
    _REGISTRY[cls.name] = cls
    return cls


def launcher_names() -> list[str]:
    _load_builtin()
    return sorted(_REGISTRY)


def get_launcher(name: str) -> type[BaseLauncher]:
    """The launcher class called ``name``; an unknown name is a one-line RegistryError."""
    _load_builtin()
    if name not in _REGISTRY:
        raise RegistryError(f"launcher: unknown launcher {name!r} (known: {', '.join(sorted(_REGISTRY))})")
    return _REGISTRY[name]


def _load_builtin() -> None:
    import importlib

    for mod in ("autotune.launch._local", "autotune.launch._model", "autotune.launch._replay",
                "autotune.launch._slurm"):
        try:
            importlib.import_module(mod)
        except ModuleNotFoundError as exc:
            if exc.name != mod:
                raise

"""The model launcher: a repetition is a prediction of the performance model plus seeded jitter.

Nothing runs: ``run`` returns the kernel-style JSON record of ``autotune.model.simulate_run`` as the
run's stdout, and a ``wall_seconds`` equal to the simulated time, so campaigns, metric extraction
and tracking treat it exactly like a real run. Options: ``noise`` (default true), ``spread``,
``tail_probability``, ``tail_mean`` (see ``autotune.model.NoiseModel``).
"""

from __future__ import annotations

import json
import zlib
from typing import ClassVar

import numpy as np

from autotune._registry import Option
from autotune.errors import AutotuneError, ConfigError
from autotune.launch._base import BaseLauncher, RunRequest, RunResult
from autotune.model import NoiseModel, simulate_run


class ModelLauncher(BaseLauncher):
    """Runs repetitions on the performance model (``target: model`` with a system profile)."""

    name: ClassVar[str] = "model"
    schema = (Option.flag("noise", "run-to-run noise on (default true)"), Option.number("spread"),
              Option.number("tail_probability"), Option.number("tail_mean"))
    runs_command: ClassVar[bool] = False

    def __init__(self, options: object = None, where: str = "launcher") -> None:
        super().__init__(options, where)  # type: ignore[arg-type]
        o = self.options
        try:
            self.noise = NoiseModel(
                spread=float(o.get("spread", NoiseModel.spread)),
                tail_probability=float(o.get("tail_probability", NoiseModel.tail_probability)),
                tail_mean=float(o.get("tail_mean", NoiseModel.tail_mean)),
                enabled=bool(o.get("noise", True)),
            )
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"{where}: {exc}") from None

    @staticmethod
    def _rng(request: RunRequest) -> np.random.Generator:
        """A generator fixed by (campaign, seed, trial, repetition): reruns give the same result."""
        key = zlib.crc32(request.campaign.encode())
        return np.random.default_rng([key, request.seed, request.trial, request.repetition])

    def describe(self, request: RunRequest) -> str:
        cfg = " ".join(f"{k}={v}" for k, v in sorted(request.config.items())) or "(defaults)"
        return f"model {request.system.name}:{request.fs.name} {request.app.name} ranks={request.app.ranks} {cfg}"

    def run(self, request: RunRequest) -> RunResult:
        try:
            record = simulate_run(request.app.pattern, request.system, request.fs.name, request.config,
                                  rng=self._rng(request), noise=self.noise)
        except AutotuneError as exc:
            return RunResult(returncode=1, stderr=str(exc), error=str(exc))
        explanation = record.pop("explanation")
        result = RunResult(returncode=0, stdout=json.dumps(record) + "\n", stderr=explanation + "\n",
                           wall_seconds=float(record["metrics"]["seconds"]))
        result.info["command"] = self.describe(request)
        return result

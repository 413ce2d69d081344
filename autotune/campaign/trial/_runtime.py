"""A campaign bound to its target: the space, the launcher, the extractor and the per-trial settings."""

from __future__ import annotations

import json
import os
import socket
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import optuna

from autotune.campaign.file import Campaign, check_study_name, data_dir_name
from autotune.campaign.trial._baseline import baseline_config
from autotune.campaign.trial._reach import launch_io, unreachable
from autotune.campaign.trial._reservation import reservation_parameters
from autotune.errors import ConfigError
from autotune.hints import Settings, resolve
from autotune.launch import BaseLauncher, RunRequest, get_launcher, job_name_of
from autotune.measure import BaseExtractor, get_extractor
from autotune.model import cannot_judge, physical_ceiling
from autotune.optimize import Memo
from autotune.space import BoundSpace, Config
from autotune.tiers import POSIX


@dataclass
class Runtime:
    """Everything a trial needs, built once per campaign (and rebuilt identically on resume)."""

    campaign: Campaign
    space: BoundSpace
    launcher: BaseLauncher
    extractor: BaseExtractor
    baseline: Config | None = None
    io: str = "ompio"  # Open MPI: the io component the launch selects (``launch_io``); OMPIO by default
    worker: str = field(default_factory=lambda: f"{socket.gethostname()}:{os.getpid()}")
    starts: Memo = field(default_factory=dict, repr=False, compare=False)  # the model's first picks (model_start)

    @classmethod
    def build(cls, c: Campaign, launcher: BaseLauncher | None = None) -> Runtime:
        if launcher is None:
            opts = {k: v for k, v in c.launcher.items() if k != "name"}
            launcher = get_launcher(str(c.launcher["name"]), opts, "launcher")
        io = launch_io(c.launcher, c.app)
        blocked = unreachable(c.app, c.space, c.system.mpi_flavour, io) if launcher.runs_command else {}
        spec = c.space.customise(exclude=sorted(blocked)) if blocked else c.space
        if c.persistent is not None:  # the reservation's size, pool and (striped) mode hold for every trial
            spec = spec.customise(fixed=reservation_parameters(c))
        space = spec.bind(c.system, c.fs, c.app.pattern)
        space.notices.extend(blocked.values())
        if c.system.mpi_flavour == "openmpi":
            space.io_default = io or "ompio"
            if launcher.runs_command and c.app.kernel is None:  # its hints reach ROMIO only (a ROMIO_HINTS file)
                space.romio_only = tuple(dict.fromkeys([*space.romio_only, *(
                    p.name for p in space.active if p.name.startswith("mpiio.") and p.name not in c.app.reads)]))
        blind: dict[str, list[str]] = {}
        for name, why in cannot_judge(p.name for p in space.active).items():
            blind.setdefault(why, []).append(name)
        space.notices.extend(f"{', '.join(names)}: {why}: searched without the model's prior"
                             for why, names in blind.items())
        extractor = get_extractor(str(c.metric.get("extractor", "json")), c.metric, "app.metric")
        extractor.expected_kind = c.objective.kind
        return cls(c, space, launcher, extractor, baseline_config(space, c.baseline), io or "ompio")

    def settings_for(self, config: Config, is_default: bool) -> Settings:
        """The hints a trial applies: only the fixed ones for the default trial (the system's defaults). Under
        Open MPI a trial also leaves unset what the default trial leaves unset: a searched setting at its
        space default is not passed (``ompi.num_aggregators``' default stands for "OMPIO chooses", which no
        value of ``io_ompio_num_aggregators`` reproduces), except ``ompi.io``, whose default is Open MPI's."""
        applied = dict(self.space.fixed) if is_default else dict(config)
        if not is_default and self.campaign.system.mpi_flavour == "openmpi":
            defaults = self.space.default_config()
            applied = {k: v for k, v in applied.items()
                       if k in self.space.fixed or k == "ompi.io" or k not in defaults or defaults[k] != v}
        p = self.campaign.persistent
        return resolve(applied, self.campaign.system, self.campaign.fs, self.campaign.app.pattern,
                       persistent=p.name if p is not None else None, io=self.io)

    def config_of(self, trial: optuna.trial.FrozenTrial | optuna.Trial) -> Config:
        return self.space.from_optuna(trial.params)

    @property
    def runs_root(self) -> Path:
        """This study's run records: ``<workdir>/runs/<study>`` (studies sharing a work directory never mix)."""
        return self.campaign.workdir / "runs" / check_study_name(self.campaign.study)

    def run_dir(self, number: int, repetition: int) -> Path:
        return self.runs_root / f"trial-{number:04d}" / f"rep-{repetition}"

    def previous_run_dir(self, number: int, repetition: int) -> Path:
        """The run directory of interrupted trial ``number``: this study's, or ``runs/trial-NNNN/rep-R`` where
        versions before per-study records kept it, when the Slurm job recorded there (job.json) is this
        study's (so a job submitted before an upgrade is adopted, never submitted twice)."""
        path = self.run_dir(number, repetition)
        old = self.campaign.workdir / "runs" / f"trial-{number:04d}" / f"rep-{repetition}"
        if path.exists() or not old.is_dir():
            return path
        try:
            meta = json.loads((old / "job.json").read_text())
        except (OSError, ValueError):
            return path
        mine = isinstance(meta, dict) and meta.get("job_name") == job_name_of(self.campaign.study, number)
        return old if mine else path

    def data_dir(self, number: int, repetition: int) -> Path:
        return self.campaign.data_root / data_dir_name(self.campaign.study, number, repetition)

    def request(self, number: int, repetition: int, config: Config, is_default: bool, *, settings: Settings | None = None,
                seeded: bool = True, run_dir: Path | None = None, data_dir: Path | None = None,
                previous_run_dir: Path | None = None) -> RunRequest:
        """Repetition ``repetition`` of trial ``number`` as the launcher gets it: the trial's hints (``settings``,
        else ``settings_for``), its run and data directories unless given, the campaign's run timeout, and
        (``seeded``) a seed fixed by study, trial and repetition (0 otherwise)."""
        c = self.campaign
        return RunRequest(
            campaign=c.study, trial=number, repetition=repetition, app=c.app, system=c.system, fs=c.fs, config=config,
            settings=settings if settings is not None else self.settings_for(config, is_default),
            run_dir=run_dir if run_dir is not None else self.run_dir(number, repetition),
            data_dir=data_dir if data_dir is not None else self.data_dir(number, repetition),
            timeout=c.budget.run_timeout, seed=zlib.crc32(f"{c.study}/{number}/{repetition}".encode()) if seeded else 0,
            is_default=is_default, previous_run_dir=previous_run_dir)

    def check_target(self) -> None:
        root = self.campaign.data_root
        if self.campaign.fs.tier is POSIX and root.exists() and not root.is_dir():
            raise ConfigError(f"target.path: {str(root)!r} is not a directory")

    def info(self) -> dict[str, Any]:
        c = self.campaign
        return {"system": c.system.name, "filesystem": c.fs.name, "fs_kind": c.fs.kind, "app": c.app.name,
                "space": c.space.name, "launcher": str(c.launcher["name"]), "metric": c.objective.metric,
                "direction": c.objective.direction, "repeats": c.objective.repeats,
                "pattern": c.app.pattern.as_dict(),  # `autotune hints` finds the nearest recorded pattern
                "fixed": dict(self.space.fixed),     # and `autotune hints APP` renders without the campaign file
                "metric_kind": c.objective.kind, "plausible_max": self.plausible_max()}

    def plausible_max(self) -> float | None:
        """The model's aggregate ceiling of the target in MiB/s for a bandwidth metric (None: no bound known):
        ``measure.implausible`` flags a value ten times above it."""
        c = self.campaign
        if c.objective.kind != "bandwidth":
            return None
        ceiling = physical_ceiling(c.app.pattern, c.system, c.fs.name)
        return ceiling / 2**20 if ceiling else None

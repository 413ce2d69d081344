"""Contract test suites every plug-in passes (``contracts``: one per kind, run on every registry entry) and helpers."""

from autotune.testing._burst import cli_at_once
from autotune.testing._executor import ExecutorContract, model_campaign, wrf_model_campaign
from autotune.testing._extractor import ExtractorContract
from autotune.testing._history import grow_study, production_campaign
from autotune.testing._hosts import simulate_cores
from autotune.testing._killloop import SAMPLERS, KillLoopResult, resume_kill_loop
from autotune.testing._launcher import LauncherContract, RunContract, command_request
from autotune.testing._postgres import fresh_postgres_database
from autotune.testing._proxy import Blackhole, TcpProxy
from autotune.testing._requests import PY, make_requests
from autotune.testing._slurm import ensure_local_slurm, queued_jobs
from autotune.testing._stacks import MISSING_OPENMPI, Stack, local_system_file, mpich_stack, openmpi_stack
from autotune.testing._tracker import TrackerContract

__all__ = [
    "MISSING_OPENMPI",
    "PY",
    "SAMPLERS",
    "Blackhole",
    "ExecutorContract",
    "ExtractorContract",
    "KillLoopResult",
    "LauncherContract",
    "RunContract",
    "Stack",
    "TcpProxy",
    "TrackerContract",
    "cli_at_once",
    "command_request",
    "ensure_local_slurm",
    "fresh_postgres_database",
    "grow_study",
    "local_system_file",
    "make_requests",
    "model_campaign",
    "mpich_stack",
    "openmpi_stack",
    "production_campaign",
    "queued_jobs",
    "resume_kill_loop",
    "simulate_cores",
    "wrf_model_campaign",
]

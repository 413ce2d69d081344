"""Contract test suites every plug-in passes (``contracts``: one per kind, run on every registry entry) and helpers."""

from autotune.testing._burst import cli_at_once
from autotune.testing._clirun import Outcome, assert_clean, model_campaign_data, run_cli, write_campaign_yaml
from autotune.testing._executor import ExecutorContract, model_campaign, wrf_model_campaign
from autotune.testing._extractor import ExtractorContract
from autotune.testing._history import grow_study, production_campaign
from autotune.testing._hosts import simulate_cores
from autotune.testing._killloop import SAMPLERS, KillLoopResult, resume_kill_loop
from autotune.testing._launcher import LauncherContract, RunContract, command_request
from autotune.testing._misbehave import GOOD_APP, kill_9_repeatedly, kill_all, processes_with, script_campaign, wait_for
from autotune.testing._net import closed_port, descendants, is_loopback, listeners
from autotune.testing._postgres import fresh_postgres_database
from autotune.testing._proxy import Blackhole, TcpProxy
from autotune.testing._requests import PY, make_requests
from autotune.testing._slurm import ensure_local_slurm, queued_jobs
from autotune.testing._stacks import MISSING_OPENMPI, Stack, local_system_file, mpich_stack, openmpi_stack
from autotune.testing._tracker import TrackerContract, history

__all__ = [
    "GOOD_APP",
    "MISSING_OPENMPI",
    "PY",
    "SAMPLERS",
    "Blackhole",
    "ExecutorContract",
    "ExtractorContract",
    "KillLoopResult",
    "LauncherContract",
    "Outcome",
    "RunContract",
    "Stack",
    "TcpProxy",
    "TrackerContract",
    "assert_clean",
    "cli_at_once",
    "closed_port",
    "command_request",
    "descendants",
    "ensure_local_slurm",
    "fresh_postgres_database",
    "grow_study",
    "history",
    "is_loopback",
    "kill_9_repeatedly",
    "kill_all",
    "listeners",
    "local_system_file",
    "make_requests",
    "model_campaign",
    "model_campaign_data",
    "mpich_stack",
    "openmpi_stack",
    "processes_with",
    "production_campaign",
    "queued_jobs",
    "resume_kill_loop",
    "run_cli",
    "script_campaign",
    "simulate_cores",
    "wait_for",
    "wrf_model_campaign",
    "write_campaign_yaml",
]

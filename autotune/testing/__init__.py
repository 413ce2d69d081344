"""Contract test suites every plug-in backend passes (launchers, trackers, executors, extractors) and helpers."""

from autotune.testing._executor import ExecutorContract, model_campaign, wrf_model_campaign
from autotune.testing._extractor import ExtractorContract
from autotune.testing._history import grow_study, production_campaign
from autotune.testing._launcher import LauncherContract, RunContract, command_request
from autotune.testing._postgres import fresh_postgres_database
from autotune.testing._proxy import Blackhole, TcpProxy
from autotune.testing._requests import PY, make_requests
from autotune.testing._slurm import ensure_local_slurm
from autotune.testing._tracker import TrackerContract

__all__ = [
    "PY", "Blackhole", "ExecutorContract", "ExtractorContract", "LauncherContract", "RunContract", "TcpProxy",
    "TrackerContract", "command_request", "ensure_local_slurm", "fresh_postgres_database", "grow_study", "make_requests",
    "model_campaign", "production_campaign", "wrf_model_campaign",
]

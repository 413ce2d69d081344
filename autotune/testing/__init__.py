"""Contract test suites every launcher (and tracker) backend runs, and shared test helpers."""

from autotune.testing._launcher import LauncherContract, RunContract, command_request
from autotune.testing._postgres import fresh_postgres_database
from autotune.testing._proxy import Blackhole, TcpProxy
from autotune.testing._slurm import ensure_local_slurm

__all__ = ["Blackhole", "LauncherContract", "RunContract", "TcpProxy", "command_request", "ensure_local_slurm",
           "fresh_postgres_database"]

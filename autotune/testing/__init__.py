"""Contract test suites every launcher (and tracker) backend runs."""

from autotune.testing._launcher import LauncherContract, RunContract, command_request
from autotune.testing._slurm import ensure_local_slurm

__all__ = ["LauncherContract", "RunContract", "command_request", "ensure_local_slurm"]

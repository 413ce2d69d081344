"""Contract test suites every launcher (and tracker) backend runs."""

from autotune.testing._launcher import LauncherContract, command_request

__all__ = ["LauncherContract", "command_request"]

"""The one exception type users see: a one-line message naming the bad value and what was expected."""

from __future__ import annotations


class AutotuneError(Exception):
    """A user-facing error. ``str(err)`` is a single line; the CLI prints it without a traceback."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(message.split()))


class ConfigError(AutotuneError):
    """A campaign, search space or system profile is invalid."""


class RegistryError(AutotuneError):
    """An unknown plug-in name (launcher, tracker, executor, extractor, sampler)."""


class StoreUnreachable(ConfigError):
    """A storage URL that is well formed but cannot be opened now (server down, refused, timed out)."""

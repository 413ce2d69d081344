"""Optional dependencies: a feature whose extra is not installed fails in one line naming the extra."""

from __future__ import annotations

import importlib
from types import ModuleType

from autotune.errors import AutotuneError


class MissingExtraError(AutotuneError):
    """A feature needs an optional dependency that is not installed."""


def require(module: str, extra: str, feature: str) -> ModuleType:
    """``import module``, or a one-line ``MissingExtraError``: "<feature> needs <pkg>: pip install 'autotune[<extra>]'"."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        top = module.split(".")[0]
        if exc.name is not None and exc.name.split(".")[0] != top:
            raise  # the package is there but one of its own dependencies is missing: not ours to explain
        raise MissingExtraError(f"{feature} needs {top}, which is not installed: pip install 'autotune[{extra}]'") from None

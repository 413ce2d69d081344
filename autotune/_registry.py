"""One registry for every plug-in point (launchers, executors, trackers, extractors, samplers, dialects, kernels).

Names are listed once, in the registry; an unknown name is a one-line ``RegistryError`` naming the known
ones; the CLI's ``choices`` come from ``names()``. An entry is either the object itself or a
``"module:attribute"`` string imported on first use, so a plug-in whose optional dependency is missing
costs nothing until it is asked for.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar, overload

from autotune.errors import RegistryError

T = TypeVar("T")
UNKNOWN = "{where}: unknown {kind} {name!r} (known: {known})"
NOT_ONE_OF = "{where}: {name!r} is not one of {known}"


class Registry(Generic[T]):
    """Named plug-ins of one kind: ``reg.register("name", obj)``, ``reg.get("name")``, ``reg.names()``."""

    def __init__(self, kind: str, where: str | None = None, message: str = UNKNOWN) -> None:
        self.kind = kind                 # e.g. "launcher": used in the error text
        self.where = where or kind       # the config key the name came from, e.g. "sampler.name"
        self.message = message           # format of the error: {where}, {kind}, {name!r}, {known}
        self._entries: dict[str, T | str] = {}

    @overload
    def register(self, name: str) -> Callable[[T], T]: ...

    @overload
    def register(self, name: str, item: T) -> T: ...

    def register(self, name: str, item: T | None = None) -> T | Callable[[T], T]:
        """Add ``item`` under ``name`` (or use as a decorator: ``@reg.register("name")``)."""
        if not name:
            raise ValueError(f"a {self.kind} needs a name")
        if item is None:
            def deco(obj: T) -> T:
                self._entries[name] = obj
                return obj
            return deco
        self._entries[name] = item
        return item

    def register_lazy(self, name: str, target: str) -> None:
        """Add ``name`` as ``"package.module:attribute"``, imported when first asked for."""
        if ":" not in target:
            raise ValueError(f"{target!r} is not 'module:attribute'")
        self._entries.setdefault(name, target)

    def names(self) -> list[str]:
        """Every registered name, in the order they were registered."""
        return list(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def check(self, name: object, where: str | None = None) -> str:
        """``name`` if it is registered, else a one-line RegistryError naming the known ones."""
        if not isinstance(name, str) or name not in self._entries:
            raise RegistryError(self.message.format(where=where or self.where, kind=self.kind, name=name,
                                                    known=", ".join(self.names())))
        return name

    def get(self, name: object, where: str | None = None) -> T:
        """The plug-in called ``name`` (imported now if it was registered lazily)."""
        key = self.check(name, where)
        entry = self._entries[key]
        if isinstance(entry, str):
            module, _, attr = entry.partition(":")
            loaded = getattr(importlib.import_module(module), attr)
            self._entries[key] = loaded
            return loaded  # type: ignore[no-any-return]
        return entry

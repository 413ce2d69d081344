"""One registry and one plug-in shape for every plug-in point (launchers, executors, trackers, extractors,
samplers, dialects, kernels, file-system tiers).

The shape: a registry entry IS the implementation — a class (kernels: an instance) of the kind's base
class, whose docstring is the contract, named by its ``name``. Names are listed once, in the registry; an
unknown name is a one-line ``RegistryError`` naming the known ones; the CLI's ``choices`` come from
``names()``. An entry is registered once, either as the object or as a ``"module:attribute"`` string
imported on first use (so a plug-in whose optional dependency is missing costs nothing until asked for).

Options are validated by one mechanism: a plug-in declares ``schema`` (a tuple of ``Option``) and
``Plugin.check_options`` refuses an unknown key or a value of the wrong type in one line naming the key,
the value and what was expected.

The plug-ins a campaign builds by name (launchers, executors, trackers, extractors) have one accessor of one
shape: ``get_<kind>(name, options=None, where=...)`` returns a configured instance of the kind's base class (its
options checked at construction); ``REGISTRY.get(name)`` returns the registered entry itself (the class), for
what a class states without being built (``schema``, ``runs_command``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar, overload

from autotune.errors import ConfigError, RegistryError

T = TypeVar("T")
UNKNOWN = "{where}: unknown {kind} {name!r} (known: {known})"
NOT_ONE_OF = "{where}: {name!r} is not one of {known}"


@dataclass(frozen=True)
class Option:
    """One option a plug-in takes: ``name``, the YAML types it accepts and those types in words.

    ``types`` empty accepts any value (the plug-in checks it further, e.g. a size or a duration); ``bool``
    is accepted only where listed (YAML ``true`` is not a number).
    """

    name: str
    types: tuple[type, ...] = ()
    expected: str = "any value"
    help: str = ""

    @classmethod
    def text(cls, name: str, help: str = "") -> Option:
        return cls(name, (str,), "a string", help)

    @classmethod
    def number(cls, name: str, help: str = "") -> Option:
        return cls(name, (int, float), "a number", help)

    @classmethod
    def integer(cls, name: str, help: str = "") -> Option:
        return cls(name, (int,), "an integer", help)

    @classmethod
    def flag(cls, name: str, help: str = "") -> Option:
        return cls(name, (bool,), "true or false", help)

    @classmethod
    def words(cls, name: str, help: str = "") -> Option:
        return cls(name, (list,), "a list", help)

    @classmethod
    def mapping(cls, name: str, help: str = "") -> Option:
        return cls(name, (dict,), "a mapping", help)

    @classmethod
    def size(cls, name: str, help: str = "") -> Option:
        """A size or a duration: a number or a string with a unit (``4MiB``, ``1h``)."""
        return cls(name, (int, float, str), "a number or a string with a unit", help)

    def check(self, value: Any, where: str) -> Any:
        """``value`` if it has one of ``types``; else a one-line ConfigError naming key, value and expected."""
        if not self.types or value is None:
            return value
        if isinstance(value, bool) and bool not in self.types:
            ok = False
        else:
            ok = isinstance(value, self.types)
        if not ok:
            raise ConfigError(f"{where}.{self.name}: {value!r} is not {self.expected}")
        return value


def check_options(options: Mapping[str, Any] | None, schema: Sequence[Option], where: str,
                  also: Sequence[str] = ()) -> dict[str, Any]:
    """``options`` as a dict after refusing an unknown key (``also``: keys the caller reads itself, e.g. the
    plug-in's ``name``) and a value of the wrong type, each in one line."""
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise ConfigError(f"{where}: expected a mapping (key: value lines), got {type(options).__name__}")
    known = {o.name: o for o in schema}
    allowed = sorted({*known, *also})
    for key, value in options.items():
        if key in known:
            known[key].check(value, where)
        elif key not in also:
            raise ConfigError(f"{where}: unknown key {str(key)!r} (allowed: {', '.join(allowed) or 'none'})")
    return dict(options)


class Plugin:
    """What every plug-in class has: a ``name`` (its registry name) and a ``schema`` of its options."""

    name: ClassVar[str] = ""
    schema: ClassVar[tuple[Option, ...]] = ()

    @classmethod
    def option_names(cls) -> frozenset[str]:
        return frozenset(o.name for o in cls.schema)

    @classmethod
    def check_options(cls, options: Mapping[str, Any] | None, where: str, also: Sequence[str] = ()) -> dict[str, Any]:
        """The options after the one check every plug-in shares (``check_options`` on ``schema``)."""
        return check_options(options, cls.schema, where, also)


class Registry(Generic[T]):
    """Named plug-ins of one kind: ``reg.register("name", obj)``, ``reg.get("name")``, ``reg.names()``.

    ``base``: the kind's base class; an entry that is not one (a subclass, or an instance for kinds whose
    entries are data, such as kernels) is refused when registered or first loaded.
    """

    def __init__(self, kind: str, where: str | None = None, message: str = UNKNOWN, base: type | None = None) -> None:
        self.kind = kind                 # e.g. "launcher": used in the error text and to pick the contract suite
        self.where = where or kind       # the config key the name came from, e.g. "sampler.name"
        self.message = message           # format of the error: {where}, {kind}, {name!r}, {known}
        self.base = base
        self._entries: dict[str, T | str] = {}

    def _checked(self, name: str, item: Any) -> Any:
        if self.base is not None and not (isinstance(item, type) and issubclass(item, self.base)) \
                and not isinstance(item, self.base):
            raise TypeError(f"{self.kind} {name!r}: {item!r} is not a {self.base.__name__}")
        return item

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
                self._entries[name] = self._checked(name, obj)
                return obj
            return deco
        self._entries[name] = self._checked(name, item)
        return item

    def register_lazy(self, name: str, target: str) -> None:
        """Add ``name`` as ``"package.module:attribute"``, imported when first asked for."""
        if ":" not in target:
            raise ValueError(f"{target!r} is not 'module:attribute'")
        self._entries.setdefault(name, target)

    def unregister(self, name: str) -> None:
        """Remove ``name`` (tests that plant an entry take it out again)."""
        self._entries.pop(name, None)

    def origin(self, name: str) -> str:
        """The module that provides entry ``name`` (without importing a lazily registered one)."""
        entry = self._entries[self.check(name)]
        if isinstance(entry, str):
            return entry.partition(":")[0]
        return str(getattr(entry, "__module__", None) or type(entry).__module__)

    def names(self) -> list[str]:
        """Every registered name, in the order they were registered."""
        return list(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}: {', '.join(self.names())})"

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
            loaded = self._checked(key, getattr(importlib.import_module(module), attr))
            self._entries[key] = loaded
            return loaded  # type: ignore[no-any-return]
        return entry

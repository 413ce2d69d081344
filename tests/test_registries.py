"""Every registry in the package, every entry through the contract suite of its kind (autotune.testing.contracts).

The registries are found by importing every module of the package, so a new registry cannot hide; an entry
whose kind has no suite, or whose suite needs an example that tests/contracts/examples.py does not give,
fails here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from autotune._registry import Plugin, Registry
from autotune.errors import ConfigError
from autotune.execute import BaseExecutor, get_executor
from autotune.launch import LAUNCHERS, BaseLauncher, RunRequest, RunResult, get_launcher
from autotune.measure import BaseExtractor, get_extractor
from autotune.testing.contracts import SUITES, NoContract, check_entry, entries, registries
from autotune.tracking import BaseTracker, get_tracker
from tests.contracts.examples import EXAMPLES

REGISTRIES = registries()
KINDS = {"launcher", "executor", "tracker", "extractor", "sampler", "dialect", "kernel", "tier", "aggregate", "plot"}


def _cases() -> list[Any]:
    cases = []
    for reg, name in entries(REGISTRIES, "autotune"):
        marks = EXAMPLES.get((reg.kind, name), (None, ()))[1]
        cases.append(pytest.param(reg, name, marks=marks, id=f"{reg.kind}-{name}"))
    return cases


def test_the_walk_finds_every_kind_of_plug_in() -> None:
    kinds = {r.kind for r in REGISTRIES}
    assert kinds >= KINDS, f"registries not found: {KINDS - kinds}"
    assert len(kinds) == len(REGISTRIES), "two registries share a kind"
    assert kinds <= set(SUITES), f"kinds without a contract suite: {kinds - set(SUITES)}"


def test_every_registry_checks_the_base_of_its_kind() -> None:
    assert [r.kind for r in REGISTRIES if r.base is None] == []
    with pytest.raises(TypeError, match="plot 'wrong': 'not a plot' is not a Plot"):
        next(r for r in REGISTRIES if r.kind == "plot").register("wrong", "not a plot")


GETS = [pytest.param(get_launcher, "local", BaseLauncher, id="launcher"),
        pytest.param(get_executor, "serial", BaseExecutor, id="executor"),
        pytest.param(get_tracker, "none", BaseTracker, id="tracker"),
        pytest.param(get_extractor, "json", BaseExtractor, id="extractor")]


@pytest.mark.parametrize(("get", "name", "base"), GETS)
def test_every_get_accessor_returns_an_instance_built_with_checked_options(get: Any, name: str, base: type) -> None:
    assert isinstance(get(name), base) and isinstance(get(name, {}), base)
    with pytest.raises(ConfigError, match="unknown key 'bogus'"):
        get(name, {"bogus": 1})


@pytest.mark.parametrize(("registry", "name"), _cases())
def test_every_entry_passes_the_contract_of_its_kind(registry: Registry[Any], name: str, tmp_path: Path) -> None:
    make = EXAMPLES.get((registry.kind, name), (None, ()))[0]
    check_entry(registry, name, make(tmp_path) if make else None, tmp_path)


def test_every_example_names_a_registered_entry() -> None:
    registered = {(r.kind, n) for r, n in entries(REGISTRIES, "autotune")}
    assert set(EXAMPLES) <= registered, f"examples of nothing: {set(EXAMPLES) - registered}"


class Planted(BaseLauncher):
    """A launcher someone registered without giving its contract an example."""

    name = "planted"

    def run(self, request: RunRequest) -> RunResult:
        return RunResult(returncode=0, stdout="ok\n")


def test_a_planted_entry_without_a_contract_fails(tmp_path: Path) -> None:
    LAUNCHERS.register(Planted.name, Planted)
    try:
        planted = [(r, n) for r, n in entries(registries()) if n == "planted"]
        assert planted == [(LAUNCHERS, "planted")]  # the walk sees it
        with pytest.raises(NoContract, match="launcher 'planted': its contract suite needs an example"):
            check_entry(LAUNCHERS, "planted", EXAMPLES.get(("launcher", "planted")), tmp_path)
    finally:
        LAUNCHERS.unregister(Planted.name)


def test_a_planted_registry_of_a_new_kind_fails(tmp_path: Path) -> None:
    widgets: Registry[type[Plugin]] = Registry("widget")
    widgets.register("w", Plugin)
    with pytest.raises(NoContract, match="widget 'w': no contract suite for the kind 'widget'"):
        check_entry(widgets, "w", None, tmp_path)


def test_a_broken_entry_fails_its_contract(tmp_path: Path) -> None:
    local: Any = LAUNCHERS.get("local")

    class Broken(local):  # type: ignore[misc, valid-type]
        """The local launcher, but it raises for a failing app instead of returning a failed result."""

        name = "broken"

        def run(self, request: RunRequest) -> RunResult:
            if "exit" in " ".join(request.app.command):
                raise RuntimeError("the app failed")
            return super().run(request)  # type: ignore[no-any-return]

    LAUNCHERS.register(Broken.name, Broken)
    try:
        with pytest.raises(RuntimeError, match="the app failed"):
            check_entry(LAUNCHERS, "broken", (lambda: Broken({}), None, None), tmp_path)
    finally:
        LAUNCHERS.unregister(Broken.name)

"""Contract suites per plug-in kind, for every entry of every registry (tests/test_registries.py walks them).

``registries()`` finds every ``Registry`` in the package by importing each module (a new registry cannot
hide); ``check_entry(registry, name, example, tmp)`` runs the suite of the registry's kind on one entry. A
kind without a suite, or an entry whose kind needs an example (a launcher's requests, an extractor's
sample output) and has none, raises ``NoContract``: a plug-in cannot be registered untested. Third-party
plug-ins reuse the suites: ``check_entry(LAUNCHERS, "mine", example, tmp_path)``.

Examples (what ``example(tmp)`` returns) per kind:
launcher: ``(make, ok_request, failing_request)``: ``make()`` builds a fresh launcher (one per check), the
request builders take ``(tmp, repetition=0)``/``(tmp)``, or are None for both when the launcher runs
commands (the suite then runs ``sys.executable -c ...``); executor: ``make``; tracker: ``(make, read_back)``
(``make(tmp)``; ``read_back(tracker)`` as in ``TrackerContract``); extractor: ``(extractor, result, metric,
value)``. Samplers, dialects, kernels, tiers, aggregates and plots need none.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from autotune._registry import Registry

Suite = Callable[[Registry[Any], str, Any, Path], None]
SUITES: dict[str, Suite] = {}


class NoContract(AssertionError):
    """An entry (or a whole kind) that no contract suite covers."""


def suite(kind: str) -> Callable[[Suite], Suite]:
    """Register the contract suite of ``kind`` (a registry's ``kind``)."""
    def deco(fn: Suite) -> Suite:
        SUITES[kind] = fn
        return fn
    return deco


def registries(package: str = "autotune") -> list[Registry[Any]]:
    """Every ``Registry`` held by a module of ``package`` (each module imported; ``__main__`` modules skipped)."""
    root = importlib.import_module(package)
    found: dict[int, Registry[Any]] = {}
    names = [package] + [m.name for m in pkgutil.walk_packages(root.__path__, package + ".")
                         if not m.name.endswith("__main__")]
    for name in names:
        for value in vars(importlib.import_module(name)).values():
            if isinstance(value, Registry):
                found.setdefault(id(value), value)
    return list(found.values())


def check_entry(registry: Registry[Any], name: str, example: Any, tmp: Path) -> None:
    """Run the contract suite of ``registry.kind`` on the entry ``name``; NoContract when none covers it."""
    run = SUITES.get(registry.kind)
    if run is None:
        raise NoContract(f"{registry.kind} {name!r}: no contract suite for the kind {registry.kind!r} "
                         "(add one to autotune.testing.contracts.SUITES)")
    run(registry, name, example, tmp)


def _needs(example: Any, registry: Registry[Any], name: str) -> Any:
    if example is None:
        raise NoContract(f"{registry.kind} {name!r}: its contract suite needs an example (see "
                         "autotune.testing.contracts) and none is given")
    return example


def run_class_suite(contract: object, fixtures: dict[str, Callable[[], Any]], tmp: Path) -> list[str]:
    """Call every ``test_*`` method of a class-based contract (``LauncherContract`` ...) as pytest would: each
    argument a fresh fixture (``fixtures[name]()``, closed after the check), a fresh ``tmp_path``, once per
    value of a ``parametrize`` mark; returns the names run."""
    ran = []
    for attr in sorted(dir(contract)):
        if not attr.startswith("test_"):
            continue
        method = getattr(contract, attr)
        params = [p for p in inspect.signature(method).parameters if p != "self"]
        cases: list[dict[str, Any]] = [{}]
        for mark in getattr(method, "pytestmark", []):
            if mark.name == "parametrize":
                argname, values = mark.args[0], mark.args[1]
                cases = [{**c, argname: v} for c in cases for v in values]
        for i, case in enumerate(cases):
            sub = tmp / f"{attr}-{i}"
            sub.mkdir(parents=True)
            made = {k: make() for k, make in fixtures.items() if k in params}
            try:
                method(**{p: {**made, "tmp_path": sub, **case}[p] for p in params})
            finally:
                for obj in made.values():
                    if hasattr(obj, "close"):
                        obj.close()
        ran.append(attr)
    return ran


@suite("launcher")
def launcher_suite(registry: Registry[Any], name: str, example: Any, tmp: Path) -> None:
    """RunContract (and LauncherContract for a launcher that runs commands): a trivial run through the launcher
    succeeds with output, a failing one is a one-line failure result; describe, run_many, recover, close."""
    from autotune.testing._launcher import LauncherContract, RunContract

    make, ok, failing = _needs(example, registry, name)
    launcher = make()
    assert registry.get(name) is type(launcher) and launcher.name == name
    launcher.close()
    if ok is None:
        contract: RunContract = LauncherContract()
    else:
        class Given(RunContract):
            def ok_request(self, tmp: Path, repetition: int = 0) -> Any:
                return ok(tmp, repetition)

            def failing_request(self, tmp: Path) -> Any:
                return failing(tmp)

        contract = Given()
    run_class_suite(contract, {"launcher": make}, tmp)
    _unknown_option_is_one_line(type(launcher), "launcher")


@suite("executor")
def executor_suite(registry: Registry[Any], name: str, example: Any, tmp: Path) -> None:
    """ExecutorContract: map keeps order; a campaign on the model runs its trials to the budget and resumes."""
    from autotune.testing._executor import ExecutorContract

    make = _needs(example, registry, name)
    with make() as executor:
        assert registry.get(name) is type(executor) and executor.name == name
    run_class_suite(ExecutorContract(), {"executor": make}, tmp)


@suite("tracker")
def tracker_suite(registry: Registry[Any], name: str, example: Any, tmp: Path) -> None:
    """TrackerContract: a campaign's trials are logged and read back through the tracker's own backend."""
    from autotune.testing._tracker import TrackerContract

    make, read_back = _needs(example, registry, name)
    assert registry.get(name) is type(make(tmp / "first"))
    contract = type("Contract", (TrackerContract,), {"recorded": lambda self, t: read_back(t)})()
    for attr in sorted(a for a in dir(contract) if a.startswith("test_")):  # a fresh record per check
        getattr(contract, attr)(make(tmp / attr))


@suite("extractor")
def extractor_suite(registry: Registry[Any], name: str, example: Any, tmp: Path) -> None:
    """ExtractorContract: a known sample is parsed to its value; bad output never raises; options are checked."""
    from autotune.testing._extractor import ExtractorContract

    extractor, result, metric, value = _needs(example, registry, name)
    contract = type("Contract", (ExtractorContract,), {"good": lambda self: (result, metric, value)})()
    run_class_suite(contract, {"extractor": lambda: extractor}, tmp)


@suite("sampler")
def sampler_suite(registry: Registry[Any], name: str, example: Any, tmp: Path) -> None:
    """A seeded sampler proposes configurations inside a small space, the same ones for the same seed."""
    import optuna
    import pytest

    from autotune.campaign import Runtime
    from autotune.errors import ConfigError
    from autotune.optimize import SamplerPlugin, make_sampler
    from autotune.testing._executor import model_campaign

    assert issubclass(registry.get(name), SamplerPlugin)
    space = Runtime.build(model_campaign(tmp)).space
    allowed = {p.name: set(p.values()) for p in space.active}

    def proposals() -> list[dict[str, Any]]:
        sampler = make_sampler({"name": name, "seed": 7, **(example or {})}, space)
        study = optuna.create_study(direction="maximize", sampler=sampler)
        seen = []
        for _ in range(4):
            trial = study.ask(space.distributions())
            config = space.from_optuna(trial.params)
            seen.append(dict(config))
            study.tell(trial, float(sum(hash(str(v)) % 97 for v in config.values())))
        return seen

    try:
        first = proposals()
    except ConfigError as err:  # an optional package the sampler needs (PyTorch, cmaes) is not installed
        if " needs " not in str(err):
            raise
        pytest.skip(str(err))
    for config in first:
        for key, value in config.items():
            if key in allowed:
                assert value in allowed[key], f"sampler {name}: {key}={value!r} is outside the space"
    assert proposals() == first, f"sampler {name}: the same seed proposed different configurations"
    _unknown_option_is_one_line(registry.get(name), "sampler.options")


@suite("dialect")
def dialect_suite(registry: Registry[Any], name: str, example: Any, tmp: Path) -> None:
    """A dialect renders a settings mapping: the text carries the settings (or a ``#`` line saying why none),
    JSON parses, and a value with a newline is a one-line error, never a second line."""
    import json

    from autotune.errors import ConfigError
    from autotune.hints import Dialect, ExportDestination, Settings, Stripe

    cls = registry.get(name)
    assert issubclass(cls, Dialect) and cls.name == name and cls.what and "\n" not in cls.what
    settings = Settings(info={"romio_cb_write": "enable", "cb_nodes": "4"}, stripe=Stripe(count=8, size=4 << 20),
                        mca={"io": "romio321"}, config={"mpiio.romio_cb_write": "enable"})
    target = ExportDestination(mpi_flavour="cray-mpich")
    text = cls().render(settings, target)
    assert text.strip()
    carried = ("romio_cb_write", "enable", "-c 8", "romio321", "#")
    assert any(word in text for word in carried), f"dialect {name}: none of the settings in {text!r}"
    if name == "json":
        assert json.loads(text)["mpi_info"]["cb_nodes"] == "4"
    bad = Settings(info={"romio_cb_write": "enable\nrm -rf ~"}, mca={"io": "ompio\nx"}, config={})
    try:
        out = cls().render(bad, target)
    except ConfigError as err:
        assert "\n" not in str(err)
    else:
        assert "\nrm -rf" not in out and "\nx" not in out, f"dialect {name}: a newline broke out of its line"


@suite("kernel")
def kernel_suite(registry: Registry[Any], name: str, example: Any, tmp: Path) -> None:
    """A kernel's spec: named as registered, described, every argument's default accepted by its own check,
    and the defaults give an I/O pattern with positive sizes on 4 ranks."""
    from autotune.kernels import Kernel

    k = registry.get(name)
    assert isinstance(k, Kernel) and k.name == name and k.description
    assert k.options and all(a.name and a.help and a.flag.startswith("--") for a in k.args)
    for a in k.args:
        if a.default is not None:
            a.value(a.default, f"{name}.{a.name}")
    pattern = k.pattern({}, 4)
    assert pattern["bytes_per_rank"] > 0 and pattern["transfer_size"] > 0


@suite("tier")
def tier_suite(registry: Registry[Any], name: str, example: Any, tmp: Path) -> None:
    """A file-system tier (``autotune.tiers.Tier``): attributes of their declared types, consistent flags, its
    search space loads, ``missing`` agrees with ``profile_needs``, its mount types map back to it."""
    tiers = importlib.import_module("autotune.tiers")
    t = registry.get(name)
    assert isinstance(t, tiers.Tier) and t.name == name and name.isalpha() and name.islower() and t.label
    for attr, kind in (("mount_types", tuple), ("rabbit_types", tuple), ("profile_needs", tuple)):
        assert isinstance(getattr(t, attr), kind), f"tier {name}: {attr} is not a {kind.__name__}"
    for attr in ("shared", "one_sided", "near_node", "probed", "dw_allocation", "tmp_request", "cache_state",
                 "bills_bb_nodes", "stripes"):
        assert isinstance(getattr(t, attr), bool), f"tier {name}: {attr} is not true/false"
    assert not (t.near_node and t.probed) and not (t.near_node and t.shared)
    if t.space is not None:
        from autotune.space import load_space

        load_space(t.space)
    assert (t.missing(set()) is None) == (not t.profile_needs)
    assert t.missing({key for keys, _ in t.profile_needs for key in keys}) is None
    for mount in t.mount_types:
        assert tiers.by_mount_type(mount) is t


@suite("aggregate")
def aggregate_suite(registry: Registry[Any], name: str, example: Any, tmp: Path) -> None:
    """An aggregate of N (``autotune.measure.Aggregate``): one value gives itself; the value lies within the
    repetitions' range and does not depend on their order, in either direction."""
    from autotune.measure import Aggregate

    a = registry.get(name)
    assert isinstance(a, Aggregate)
    values = [3.0, 1.0, 2.5, 2.0]
    for maximize in (True, False):
        assert a.of([2.0], maximize) == 2.0
        value = a.of(values, maximize)
        assert min(values) <= value <= max(values), f"aggregate {name}: {value} outside the repetitions"
        assert a.of(values[::-1], maximize) == value, f"aggregate {name}: depends on the order"


@suite("plot")
def plot_suite(registry: Registry[Any], name: str, example: Any, tmp: Path) -> None:
    """A report plot (``autotune.report.Plot``): a one-line caption; for a target with no trial yet it is
    either not shown or drawn as SVG text (a note that nothing is there, never an exception)."""
    from autotune.report import Comparison, Plot, TargetFigures
    from autotune.tiers import POSIX

    p = registry.get(name)
    assert isinstance(p, Plot) and p.caption and "\n" not in p.caption
    target = TargetFigures(
        label="a", campaign="a", study="a", storage="sqlite://", tracking_uri=None, app="ior", system="local",
        filesystem="scratch", fs_kind=POSIX.name, metric="bandwidth", direction="maximize", repeats=1, nodes=1,
        ranks=1, trials=[], best=None, default=None, speedup=None, hints_text="", best_is_default=False,
        node_hours=0.0, bb_node_hours=0.0, time_spent_s=0.0)
    nothing = Comparison(metric="bandwidth", unit="MiB/s", maximize=True, ranking=[target])
    if p.shown(nothing, [target]):
        assert p.draw(nothing, [target]).startswith("<svg"), f"plot {name}: not SVG text"


def _unknown_option_is_one_line(cls: Any, where: str) -> None:
    from autotune.errors import ConfigError

    try:
        cls.check_options({"no_such_option": 1}, where)
    except ConfigError as err:
        assert "no_such_option" in str(err) and "\n" not in str(err)
    else:
        raise AssertionError(f"{cls.__name__}: an unknown option was accepted")


def entries(regs: list[Registry[Any]], package: str | None = None) -> Iterator[tuple[Registry[Any], str]]:
    """Every (registry, name) pair; with ``package``, only the entries a module of that package provides (a
    plug-in registered from elsewhere, such as the evaluation harness's launcher, runs ``check_entry`` in its
    own tests)."""
    for reg in regs:
        for name in reg.names():
            origin = reg.origin(name)
            if package is None or origin == package or origin.startswith(package + "."):
                yield reg, name


__all__ = ["SUITES", "NoContract", "check_entry", "entries", "registries", "run_class_suite", "suite"]

"""What the contract suites (autotune.testing.contracts) need per built-in entry: a launcher's requests, an
extractor's recorded output, a tracker's store. ``EXAMPLES[(kind, name)] = (example(tmp), marks)``."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from autotune.hints import Settings
from autotune.launch import AppSpec, RunRequest, RunResult, get_launcher
from autotune.measure import get_extractor
from autotune.model import scenarios
from autotune.pattern import IOPattern
from autotune.testing import command_request, ensure_local_slurm, history
from autotune.tracking import get_tracker

FIXTURES = Path(__file__).parent.parent / "measure" / "fixtures"
SLOW = (pytest.mark.slow,)
EXAMPLES: dict[tuple[str, str], tuple[Callable[[Path], Any], tuple[Any, ...]]] = {}


def example(kind: str, name: str, marks: tuple[Any, ...] = ()) -> Callable[[Callable[[Path], Any]], Callable[[Path], Any]]:
    def deco(fn: Callable[[Path], Any]) -> Callable[[Path], Any]:
        EXAMPLES[(kind, name)] = (fn, marks)
        return fn
    return deco


@example("launcher", "local", SLOW)  # the timeout check waits 2 s; ~5 s in all
def _local(tmp: Path) -> Any:
    return (lambda: get_launcher("local", {})), None, None


def model_request(tmp: Path, config: dict[str, object], pattern: IOPattern, system: str, fs: str,
                   repetition: int = 0) -> RunRequest:
    prof = scenarios.system(system)
    return RunRequest(campaign="contract", trial=1, repetition=repetition, config=config, settings=Settings(info={}),
                      app=AppSpec(name="ior", pattern=pattern, command=("ior",)), system=prof,
                      fs=prof.filesystem(fs), run_dir=tmp / f"run-{repetition}", data_dir=tmp / "data", timeout=10.0)


@example("launcher", "model")
def _model(tmp: Path) -> Any:
    big = IOPattern(ranks=64, nodes=16, bytes_per_rank=4 << 30)
    return ((lambda: get_launcher("model")),
            lambda t, repetition=0: model_request(t, {"lustre.stripe_count": 8}, scenarios.THETA_IOR, "theta", "projects",
                                                   repetition),
            lambda t: model_request(t, {"bb.nodes": 1}, big, "cori", "bb"))


SWEEP = """# metric: write_bandwidth_mib_s
config,value,wall_s
mpiio.cb_nodes=2;mpiio.romio_cb_write=disable,410,0.5
mpiio.cb_nodes=2;mpiio.romio_cb_write=disable,390,0.5
"""


@example("launcher", "replay")
def _replay(tmp: Path) -> Any:
    (tmp / "sweep.csv").write_text(SWEEP)

    def req(t: Path, config: dict[str, object], repetition: int = 0) -> RunRequest:
        return command_request(t, ["unused"], config=config, repetition=repetition, ranks=2)

    return ((lambda: get_launcher("replay", {"surface": str(tmp / "sweep.csv")})),
            lambda t, repetition=0: req(t, {"mpiio.romio_cb_write": "disable", "mpiio.cb_nodes": 2}, repetition),
            lambda t: req(t, {"mpiio.romio_cb_write": "disable", "mpiio.cb_nodes": 4}))


@example("launcher", "slurm", (pytest.mark.slurm, pytest.mark.slow))
def _slurm(tmp: Path) -> Any:
    ensure_local_slurm()
    return (lambda: get_launcher("slurm", {"poll_interval": 0.2})), None, None


@example("launcher", "slurm-step", (pytest.mark.slurm, pytest.mark.slow))
def _slurm_step(tmp: Path) -> Any:
    ensure_local_slurm()
    return (lambda: get_launcher("slurm-step", {"poll_interval": 0.2, "queue_wait": "5m"})), None, None


@example("executor", "serial", SLOW)  # two model campaigns (~8 s here)
def _serial(tmp: Path) -> Any:
    from autotune.execute import get_executor

    return lambda: get_executor("serial", {})


@example("executor", "ray", (pytest.mark.ray, pytest.mark.slow))  # starts a local Ray (~10 s here)
def _ray(tmp: Path) -> Any:
    pytest.importorskip("ray", reason="the Ray executor needs the [ray] extra")
    from autotune.execute import get_executor

    return lambda: get_executor("ray", {"num_cpus": 2})


@example("tracker", "none")
def _none(tmp: Path) -> Any:
    return (lambda t: get_tracker("none", {})), (lambda tracker: None)


@example("tracker", "mlflow", SLOW)  # MLflow creates its SQLite schema once per store (~20 s here)
def _mlflow(tmp: Path) -> Any:
    pytest.importorskip("mlflow", reason="the MLflow tracker needs the [tracking] extra")

    def make(t: Path) -> Any:
        t.mkdir(parents=True, exist_ok=True)
        return get_tracker("mlflow", {"uri": f"sqlite:///{tmp / 'mlflow.db'}", "experiment": t.name,
                                      "artifacts": str(t / "artifacts")})

    return make, lambda tracker: history(tracker.client, tracker.experiment_name)


def _extractor(options: dict[str, Any], result: RunResult, metric: str, value: float) -> Any:
    return get_extractor(str(options["extractor"]), options), result, metric, value


@example("extractor", "json")
def _json(tmp: Path) -> Any:
    out = 'warming up\n{"autotune_record": 1, "metrics": {"bandwidth_mib_s": 812.5, "seconds": 2.0}}\n'
    return _extractor({"extractor": "json"}, RunResult(returncode=0, stdout=out), "bandwidth_mib_s", 812.5)


@example("extractor", "regex")
def _regex(tmp: Path) -> Any:
    out = "IOR-3.3.0\nMax Write: 1520.25 MiB/sec (1594.10 MB/sec)\n"
    return _extractor({"extractor": "regex", "pattern": r"^Max Write: ([0-9.]+) MiB/sec"},
                      RunResult(returncode=0, stdout=out), "bandwidth_mib_s", 1520.25)


@example("extractor", "walltime")
def _walltime(tmp: Path) -> Any:
    return _extractor({"extractor": "walltime", "bytes": "64MiB"}, RunResult(returncode=0, wall_seconds=2.0),
                      "bandwidth_mib_s", 32.0)


def _preset(tool: str, fixture: str, metric: str, value: float) -> None:
    @example("extractor", tool)
    def _make(tmp: Path) -> Any:  # a benchmark's recorded output (tests/measure/fixtures/SOURCES.md)
        out = (FIXTURES / fixture).read_text()
        return _extractor({"extractor": tool}, RunResult(returncode=0, stdout=out), metric, value)


_preset("ior", "ior-4.0.0.txt", "write_bandwidth_mib_s", 22518.33)
_preset("mdtest", "mdtest-4.0.0.txt", "file_creation_ops_per_sec", 25102.771)
_preset("h5bench", "h5bench-1.4-write.txt", "write_seconds", 6.217)
_preset("fio", "fio-3.33-text.txt", "write_bandwidth_mib_s", 2359.0)


@example("extractor", "darshan")
def _darshan(tmp: Path) -> Any:
    darshan = pytest.importorskip("darshan", reason="PyDarshan is the 'darshan' extra: pip install 'autotune[darshan]'")
    from autotune.measure import log_metrics

    log = Path(os.path.dirname(darshan.__file__)) / "examples" / "example_logs" / "ior_hdf5_example.darshan"
    shutil.copy(log, tmp / "app.darshan")
    metric, value = sorted(log_metrics(log).items())[0]
    result = RunResult(returncode=0, stdout="", wall_seconds=3.0)
    result.info["run_dir"] = str(tmp)
    return _extractor({"extractor": "darshan"}, result, metric, value)

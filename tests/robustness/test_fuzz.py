"""Property-based probe (Hypothesis): hostile campaign files and command lines end in exit 0 or a
one-line exit-2 error, never a traceback or "internal error".

``AUTOTUNE_FUZZ_EXAMPLES`` raises the number of examples (default 100 per property) for a longer hunt;
``AUTOTUNE_FUZZ_RANDOM=1`` draws fresh examples (CI is derandomized: the same examples every run).
"""

from __future__ import annotations

import contextlib
import copy
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autotune.testing import assert_clean, model_campaign_data, run_cli, write_campaign_yaml

EXAMPLES = int(os.environ.get("AUTOTUNE_FUZZ_EXAMPLES", "100"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=not os.environ.get("AUTOTUNE_FUZZ_RANDOM"),
                database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# Every key of a campaign file (and some that are not), as dotted paths into model_campaign_data().
KEYS = [
    "name", "description", "system", "target", "target.filesystem", "target.path", "space", "space.use", "space.only",
    "space.exclude", "space.fixed", "space.fixed.lustre.stripe_count", "space.fixed.lustre.stripe_size",
    "space.parameters", "space.parameters.lustre.stripe_count", "space.parameters.lustre.stripe_count.choices",
    "space.parameters.lustre.stripe_count.low", "space.parameters.lustre.stripe_count.type", "app", "app.command",
    "app.args", "app.env", "app.env.X", "app.ranks", "app.nodes", "app.pattern", "app.pattern.bytes_per_rank",
    "app.pattern.transfer_size", "app.pattern.io_mode", "app.pattern.library", "app.metric", "app.metric.extractor",
    "app.metric.field", "app.hint_files", "app.mpiexec", "app.cwd", "app.kernel", "objective", "objective.metric",
    "objective.direction", "objective.repeats", "objective.aggregate", "objective.adaptive", "objective.remeasure",
    "budget", "budget.trials", "budget.wall_time", "budget.run_timeout", "sampler", "sampler.name", "sampler.seed",
    "sampler.startup_trials", "sampler.options", "sampler.prior", "sampler.warm_start", "launcher", "launcher.name",
    "executor", "executor.name", "tracking", "tracking.enabled", "tracking.uri", "tracking.experiment", "workdir",
    "storage", "study", "unknown_key", "app.unknown",
]

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=40),
    st.sampled_from(["", "-1", "0", "1e30", "8MiB", "-4", "maybe", "null", "../..", "/proc/self", "/etc/passwd",
                     "$(touch PWNED)", "a\nb", "\x00", "sqlite:///", "ftp://x", "lustre-cray", "tpe", "ray", "model",
                     "*", "~", "1h", "mpiio.cb_nodes", "lustre.stripe_count", "\u2028", "x" * 300]),
)
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                      st.dictionaries(st.text(max_size=12) | scalars, inner,
                                                                      max_size=4)),
                      max_leaves=12)


def _set(data: dict[str, Any], dotted: str, value: Any) -> None:
    parts = dotted.split(".")
    # parameter names contain dots: keep "lustre.stripe_count" together
    merged: list[str] = []
    for p in parts:
        if merged and merged[-1] in ("lustre", "mpiio"):
            merged[-1] += "." + p
        else:
            merged.append(p)
    cur: Any = data
    for k in merged[:-1]:
        if not isinstance(cur.get(k), dict):
            cur[k] = {}
        cur = cur[k]
    cur[merged[-1]] = value


@pytest.mark.slow
@FUZZ
@given(edits=st.lists(st.tuples(st.sampled_from(KEYS), values), min_size=1, max_size=3),
       command=st.sampled_from(["space", "tune", "status", "export"]))
def test_mutated_campaign_files(edits: list[tuple[str, Any]], command: str) -> None:
    with tempfile.TemporaryDirectory() as tmp, contextlib.chdir(tmp):  # relative paths land in tmp
        t = Path(tmp)
        data = model_campaign_data(t / "work", budget={"trials": 2}, storage=":memory:")
        for key, value in edits:
            _set(data, key, copy.deepcopy(value))
        try:
            text = yaml.safe_dump(data, allow_unicode=True)
        except yaml.YAMLError:
            return
        path = write_campaign_yaml(t / "c.yaml", text)
        argv = [command, str(path)] + (["--storage", ":memory:"] if command != "space" else [])
        assert_clean(run_cli(*argv))
        assert not (Path(tmp) / "PWNED").exists()


@FUZZ
@given(text=st.one_of(st.text(max_size=400), st.binary(max_size=400).map(lambda b: b.decode("latin-1"))),
       command=st.sampled_from(["space", "tune", "status", "export"]))
def test_arbitrary_file_text(text: str, command: str) -> None:
    with tempfile.TemporaryDirectory() as tmp, contextlib.chdir(tmp):  # relative paths land in tmp
        path = Path(tmp) / "c.yaml"
        path.write_bytes(text.encode("utf-8", "surrogatepass") if command != "status" else text.encode("latin-1", "replace"))
        argv = [command, str(path)] + (["--workdir", str(Path(tmp) / "w")] if command != "space" else [])
        assert_clean(run_cli(*argv))


FLAGS = ["--study", "--storage", "--workdir", "--trials", "--repeats", "--budget", "--tracking-uri", "--executor",
         "--format", "--files", "--path", "--notify"]
flag_values = st.one_of(st.text(max_size=30), st.sampled_from(
    ["", "0", "-1", "1e9", "99999999999999999999", ":memory:", "sqlite:////no/dir/x.db", "postgresql://nobody@127.0.0.1:1/x",
     "/proc/1", "/etc/passwd", "$(touch PWNED)", "a\nb", "json", "env", "romio", "lfs", "dw", "h5py", "mpich", "xml",
     "ray", "serial", "8h", "soon", "*,a:b", "../x"]))


@pytest.mark.slow
@FUZZ
@given(command=st.sampled_from(["tune", "status", "export", "space"]),
       flags=st.lists(st.tuples(st.sampled_from(FLAGS), flag_values), max_size=3))
def test_command_line_arguments(command: str, flags: list[tuple[str, str]]) -> None:
    with tempfile.TemporaryDirectory() as tmp, contextlib.chdir(tmp):  # relative paths land in tmp
        t = Path(tmp)
        path = write_campaign_yaml(t / "c.yaml", model_campaign_data(t / "work", budget={"trials": 2}, storage=":memory:"))
        argv = [command, str(path)]
        for flag, value in flags:
            if flag == "--executor" and value == "ray":
                continue  # a Ray instance per example is too slow here: test_ray_loopback covers it
            argv += [flag, value]
        if command != "space" and "--storage" not in argv:
            argv += ["--storage", ":memory:"]
        assert_clean(run_cli(*argv))
        assert not (Path(tmp) / "PWNED").exists()

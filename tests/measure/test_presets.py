"""The benchmark presets parse recorded outputs of each tool, across the versions whose formats differ."""

from __future__ import annotations

from pathlib import Path

import pytest

from autotune.errors import ConfigError
from autotune.launch import RunResult
from autotune.measure import get_extractor

FIXTURES = Path(__file__).parent / "fixtures"


def measure(extractor: str, fixture: str, metric: str, **options: object):
    text = (FIXTURES / fixture).read_text()
    return get_extractor(extractor, options).extract(RunResult(0, stdout=text), metric)


@pytest.mark.parametrize(("fixture", "metric", "value"), [
    ("ior-3.0.1.txt", "write_bandwidth_mib_s", 1702.88),
    ("ior-3.0.1.txt", "read_bandwidth_mib_s", 3912.54),
    ("ior-3.0.1.txt", "write_bandwidth_mean_mib_s", 1680.44),
    ("ior-3.0.1.txt", "write_seconds", 0.60946),
    ("ior-3.3.0.txt", "write_bandwidth_mib_s", 10688.40),
    ("ior-3.3.0.txt", "read_iops", 3503.09),
    ("ior-4.0.0.txt", "write_bandwidth_mib_s", 22518.33),   # no "Max Write:" line in IOR 4
    ("ior-4.0.0.txt", "read_bandwidth_mean_mib_s", 30145.61),
    ("ior-4.0.0.txt", "write_iops", 2814.79),
    ("ior-4.0.0.txt", "bandwidth_mib_s", 22518.33),
    ("ior-4.0.0-json.txt", "write_bandwidth_mib_s", 41211.30),
    ("ior-4.0.0-json.txt", "write_seconds", 6.21130),
])
def test_ior(fixture: str, metric: str, value: float) -> None:
    m = measure("ior", fixture, metric)
    assert m.error is None
    assert m.value == pytest.approx(value)


def test_ior_results_table_alone_gives_the_best_iteration() -> None:
    text = (FIXTURES / "ior-4.0.0.txt").read_text().split("Summary of all tests")[0]
    m = get_extractor("ior").extract(RunResult(0, stdout=text), "write_bandwidth_mib_s")
    assert m.value == pytest.approx(22518.0)
    assert m.metrics["read_iops"] == pytest.approx(3806.90)


@pytest.mark.parametrize(("fixture", "metric", "value"), [
    ("mdtest-1.9.3.txt", "file_creation_ops_per_sec", 11876.204),
    ("mdtest-1.9.3.txt", "directory_stat_ops_per_sec", 88123.912),
    ("mdtest-1.9.3.txt", "tree_removal_ops_per_sec", 37.808),
    ("mdtest-4.0.0.txt", "file_creation_ops_per_sec", 25102.771),
    ("mdtest-4.0.0.txt", "file_creation_ops_per_sec_mean", 24561.054),
    ("mdtest-4.0.0.txt", "directory_rename_ops_per_sec", 18712.554),
])
def test_mdtest(fixture: str, metric: str, value: float) -> None:
    m = measure("mdtest", fixture, metric)
    assert m.value == pytest.approx(value)


def test_mdtest_ignores_the_time_table() -> None:
    m = measure("mdtest", "mdtest-4.0.0.txt", "file_creation_ops_per_sec")
    assert m.metrics["file_removal_ops_per_sec"] == pytest.approx(30212.009)  # the rate, not the 8.705 s of SUMMARY time
    assert not any(v < 1 for k, v in m.metrics.items() if k.startswith("file_"))


@pytest.mark.parametrize(("fixture", "metric", "value"), [
    ("h5bench-1.4-write.txt", "write_bandwidth_mib_s", 1.608 * 1024),
    ("h5bench-1.4-write.txt", "write_observed_bandwidth_mib_s", 1.465 * 1024),
    ("h5bench-1.4-write.txt", "write_seconds", 6.217),
    ("h5bench-1.4-write.txt", "completion_seconds", 10.862),
    ("h5bench-1.4-read.txt", "read_bandwidth_mib_s", 2.134 * 1024),
    ("h5bench-1.4-read.txt", "completion_seconds", 2.951),
    ("h5bench-1.0-write.txt", "write_bandwidth_mib_s", 2.123 * 1024),
    ("h5bench-1.0-write.txt", "write_seconds", 9.421),
])
def test_h5bench(fixture: str, metric: str, value: float) -> None:
    m = measure("h5bench", fixture, metric)
    assert m.value == pytest.approx(value)


def test_h5bench_rate_in_mib() -> None:
    text = "SYNC Raw write rate: 812.250 MB/s\nSYNC Observed write rate: 20.5 KB/s\n"
    m = get_extractor("h5bench").extract(RunResult(0, stdout=text), "write_bandwidth_mib_s")
    assert m.value == pytest.approx(812.25)
    assert m.metrics["write_observed_bandwidth_mib_s"] == pytest.approx(20.5 / 1024)


@pytest.mark.parametrize(("fixture", "metric", "value"), [
    ("fio-3.33.json", "write_bandwidth_mib_s", (642197341 + 627186789) / 2**20),
    ("fio-3.33.json", "write_iops", 612.440191 + 598.130841),
    ("fio-3.33.json", "write_seconds", 0.428),
    ("fio-3.33-text.txt", "write_bandwidth_mib_s", 2359.0),
    ("fio-3.33-text.txt", "write_iops", 612 + 598 + 605 + 590),
    ("fio-3.33-text.txt", "write_seconds", 0.434),
    ("fio-2.2.10-text.txt", "read_bandwidth_mib_s", 52428 / 1024),
    ("fio-2.2.10-text.txt", "write_bandwidth_mib_s", 17476 / 1024),
    ("fio-2.2.10-text.txt", "read_iops", 13107),
    ("fio-2.2.10-text.txt", "write_seconds", 15.0),
])
def test_fio(fixture: str, metric: str, value: float) -> None:
    m = measure("fio", fixture, metric)
    assert m.value == pytest.approx(value)


def test_fio_decimal_units_in_fio3() -> None:
    text = "Run status group 0 (all jobs):\n  WRITE: bw=2474MB/s, io=1024MiB (1074MB), run=418-434msec\n"
    m = get_extractor("fio").extract(RunResult(0, stdout=text), "write_bandwidth_mib_s")
    assert m.value == pytest.approx(2474e6 / 2**20)


@pytest.mark.parametrize("tool", ["ior", "mdtest", "h5bench", "fio"])
def test_other_output_is_a_failed_measurement(tool: str) -> None:
    m = get_extractor(tool).extract(RunResult(0, stdout="Segmentation fault\n"), "write_bandwidth_mib_s")
    assert (m.error or "").lower() == f"no {tool} results in stdout; last line: 'segmentation fault'"


@pytest.mark.parametrize("tool", ["ior", "fio"])
def test_empty_output_says_so(tool: str) -> None:
    m = get_extractor(tool).extract(RunResult(0, stdout=""), "write_bandwidth_mib_s")
    assert (m.error or "").lower() == f"no {tool} results in stdout; the output is empty"


def test_missing_metric_names_the_ones_there() -> None:
    m = measure("ior", "ior-4.0.0.txt", "write_ops")
    assert m.value is None and "write_bandwidth_mib_s" in (m.error or "")


def test_output_from_a_file(tmp_path: Path) -> None:
    (tmp_path / "fio.json").write_text((FIXTURES / "fio-3.33.json").read_text())
    ext = get_extractor("fio", {"file": "{run_dir}/fio.json"})
    res = RunResult(0, stdout="")
    res.info["run_dir"] = str(tmp_path)
    assert ext.extract(res, "write_iops").value == pytest.approx(1210.571032)
    assert ext.extract(RunResult(0), "write_iops").value is None


def test_bad_options() -> None:
    with pytest.raises(ConfigError, match="stream"):
        get_extractor("ior", {"stream": "stdin"})
    with pytest.raises(ConfigError, match="unknown key"):
        get_extractor("fio", {"pattern": "x"})


@pytest.mark.parametrize("name", ["ior-preset.yaml", "h5bench-preset.yaml"])
def test_readme_examples_load_with_their_preset(name: str) -> None:
    from autotune.campaign import Runtime, load_campaign

    c = load_campaign(Path(__file__).parents[2] / "experiments" / "campaigns" / name)
    rt = Runtime.build(c)
    assert type(rt.extractor).name == c.metric["extractor"] in ("ior", "h5bench")
    assert c.objective.metric == "write_bandwidth_mib_s"


@pytest.mark.parametrize(("extractor", "metric"), [
    ("ior", "write_bandwidth_mib_s"), ("ior", "write_iops"), ("mdtest", "file_creation_ops_per_sec"),
    ("h5bench", "write_bandwidth_mib_s"), ("fio", "read_iops"), ("fio", "write_seconds"),
])
def test_preset_metrics_are_campaign_objectives(tmp_path: Path, extractor: str, metric: str) -> None:
    """The names the presets give are accepted as objectives with the direction a user means."""
    from autotune.campaign import parse_campaign

    direction = "minimize" if metric.endswith("seconds") else "maximize"
    parse_campaign({"name": "p", "app": {"command": ["./x"], "metric": {"extractor": extractor}},
                    "space": "local-romio", "objective": {"metric": metric, "direction": direction}}, tmp_path)

"""Metric units and direction: declared units convert to MiB/s and s; a mismatch is a one-line error."""

from __future__ import annotations

import pytest

from autotune.errors import ConfigError
from autotune.launch import RunResult
from autotune.measure import check_direction, get_extractor, metric_unit, to_canonical
from autotune.measure._units import kind_from_name, unit_in_text


def test_units_convert_to_mib_s_and_seconds() -> None:
    assert to_canonical(1.0, "MB/s") == pytest.approx(1e6 / 2**20)
    assert to_canonical(2.0, "GiB/s") == 2048.0
    assert to_canonical(1.0, "GB/s") == pytest.approx(953.674, rel=1e-5)
    assert to_canonical(250.0, "ms") == 0.25
    assert to_canonical(2.0, "min") == 120.0
    assert to_canonical(7.0, "us") == pytest.approx(7e-6)


@pytest.mark.parametrize(("after", "unit"), [(" MiB/s", "MiB/s"), (" MB/s, 4 ranks", "MB/s"), (" seconds", "s"),
                                             ("ms", "ms"), (" GB/sec", "GB/s"), (" of 4 ranks", None), ("", None),
                                             (" mib/s", "MiB/s"), (" [s]", "s")])
def test_unit_printed_after_a_number(after: str, unit: str | None) -> None:
    assert unit_in_text(after) == unit


@pytest.mark.parametrize(("name", "kind"), [("write_bandwidth_mib_s", "bandwidth"), ("bandwidth_mib_s", "bandwidth"),
                                            ("seconds", "time"), ("write_seconds", "time"), ("io_time", "time"),
                                            ("score", None), ("my_metric", None), ("throughput", "bandwidth"),
                                            ("creates_per_s", "rate"), ("write_iops", "rate"), ("meta_ops_s", "rate"),
                                            ("file_creation_ops_per_sec", "rate"), ("elapsed_s", "time")])
def test_kind_from_name(name: str, kind: str | None) -> None:
    assert kind_from_name(name) == kind


def test_a_seconds_label_on_a_bandwidth_unit_is_refused_naming_both() -> None:
    with pytest.raises(ConfigError, match=r"'seconds' names a time, but app.metric.unit 'MB/s' is a bandwidth"):
        metric_unit({"extractor": "regex", "unit": "MB/s"}, "seconds")


def test_direction_follows_from_the_kind_or_is_checked() -> None:
    bw = metric_unit({"extractor": "regex", "unit": "GB/s"}, "bw")
    assert check_direction(bw, "bw", None) == "maximize"
    with pytest.raises(ConfigError, match=r"'minimize' on 'bw', a bandwidth in GB/s, tunes for the slowest"):
        check_direction(bw, "bw", "minimize")
    t = metric_unit({"extractor": "regex", "unit": "ms"}, "runtime")
    assert check_direction(t, "runtime", None) == "minimize"
    score = metric_unit({"extractor": "regex", "unit": "score"}, "fom")
    with pytest.raises(ConfigError, match="objective.direction: required for 'fom'"):
        check_direction(score, "fom", None)
    assert check_direction(score, "fom", "maximize") == "maximize"


def test_a_rate_is_maximised_and_never_read_as_a_time() -> None:
    rate = metric_unit({"extractor": "regex", "unit": "IOPS"}, "creates_per_s")
    assert rate.kind == "rate" and check_direction(rate, "creates_per_s", None) == "maximize"
    with pytest.raises(ConfigError, match=r"'minimize' on 'creates_per_s', a rate"):
        check_direction(rate, "creates_per_s", "minimize")
    with pytest.raises(ConfigError, match=r"'write_iops' names a rate, but app.metric.unit 's' is a time"):
        metric_unit({"extractor": "regex", "unit": "s"}, "write_iops")


def test_unknown_unit_is_one_line() -> None:
    with pytest.raises(ConfigError, match=r"app.metric.unit: 'furlongs' is not a unit"):
        get_extractor("regex", {"pattern": "x (\\d+)", "unit": "furlongs"})


def _out(text: str) -> RunResult:
    return RunResult(returncode=0, stdout=text)


def test_regex_converts_the_declared_unit() -> None:
    ex = get_extractor("regex", {"pattern": r"bw=([0-9.]+)", "unit": "GB/s"})
    assert ex.extract(_out("bw=2.0\n"), "bw").value == pytest.approx(2e9 / 2**20)


def test_regex_reads_the_unit_the_output_prints() -> None:
    ex = get_extractor("regex", {"pattern": r"took ([0-9.]+)"})
    ex.expected_kind = "time"
    assert ex.extract(_out("took 1500 ms\n"), "elapsed").value == pytest.approx(1.5)


def test_regex_capture_of_a_bandwidth_for_a_time_objective_fails_quoting_the_line() -> None:
    ex = get_extractor("regex", {"pattern": r"bandwidth: ([0-9.]+)"})
    ex.expected_kind = "time"
    m = ex.extract(_out("wrote 64 MiB\nbandwidth: 85.43 MiB/s\n"), "seconds")
    assert m.value is None and m.error is not None
    assert "says MiB/s (a bandwidth) but the objective 'seconds' is a time" in m.error
    assert "'bandwidth: 85.43 MiB/s'" in m.error


def test_regex_declared_unit_contradicted_by_the_output() -> None:
    ex = get_extractor("regex", {"pattern": r"bw ([0-9.]+)", "unit": "MiB/s"})
    m = ex.extract(_out("bw 12.5 MB/s\n"), "bw")
    assert m.value is None and "the output says MB/s" in (m.error or "") and "unit says MiB/s" in (m.error or "")


def test_regex_that_does_not_match_quotes_the_closest_line() -> None:
    ex = get_extractor("regex", {"pattern": r"bandwdth: ([0-9.]+)"})
    m = ex.extract(_out("starting\nbandwidth: 85.43 MiB/s\ndone\n"), "bw")
    assert m.value is None
    assert "closest line: 'bandwidth: 85.43 MiB/s'" in (m.error or "") and "last line: 'done'" in (m.error or "")
    assert "the output is empty" in (ex.extract(_out(""), "bw").error or "")


def test_json_unit_converts() -> None:
    ex = get_extractor("json", {"field": "metrics.t", "unit": "ms"})
    assert ex.extract(_out('{"metrics": {"t": 250}}\n'), "t").value == 0.25


def test_json_failures_say_what_the_output_had() -> None:
    ex = get_extractor("json")
    assert ex.extract(_out("Segmentation fault\n"), "bw").error == "no JSON record on stdout; last line: 'Segmentation fault'"
    m = ex.extract(_out('{"metrics": {"write_bw": 3, "seconds": 1}}\n'), "bandwidth_mib_s")
    assert m.error == "metric 'bandwidth_mib_s' not in the JSON record (it has: seconds, write_bw)"

import pytest

from autotune.errors import ConfigError
from autotune.units import format_duration, format_size, lfs_size, parse_duration, parse_size


@pytest.mark.parametrize(("text", "expected"), [
    ("8MiB", 8 << 20), ("1m", 1 << 20), (4096, 4096), ("397.44GiB", round(397.44 * 2**30)), ("2TB", 2 * 10**12),
    ("406976MiB", 406976 << 20),
])
def test_parse_size(text: object, expected: int) -> None:
    assert parse_size(text) == expected


@pytest.mark.parametrize("bad", ["-1MiB", -5, "8 parsecs", True, None, "MiB"])
def test_parse_size_rejects_with_the_value(bad: object) -> None:
    with pytest.raises(ConfigError, match="stripe"):
        parse_size(bad, "stripe")


def test_durations() -> None:
    assert parse_duration("8h") == 8 * 3600
    assert parse_duration("1h30m") == 5400
    assert parse_duration(90) == 90
    for bad in ("0s", "soon", "-3h", "5 fortnights"):
        with pytest.raises(ConfigError):
            parse_duration(bad)


def test_formatting() -> None:
    assert format_size(8 << 20) == "8MiB"
    assert format_size(1000) == "1000B"
    assert lfs_size(8 << 20) == "8m"
    assert lfs_size(65536) == "64k"
    assert format_duration(3725) == "1h02m"

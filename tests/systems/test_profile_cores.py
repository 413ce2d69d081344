"""``node.cores`` in a profile: a number, or ``detect``."""

from __future__ import annotations

import pytest

from autotune.errors import ConfigError
from autotune.systems import parse_system
from autotune.testing import simulate_cores

FS = {"disk": {"kind": "posix"}}


def test_cores_detect_and_number(monkeypatch: pytest.MonkeyPatch) -> None:
    simulate_cores(monkeypatch, 12)
    detected = parse_system({"name": "x", "node": {"cores": "detect"}, "filesystems": FS})
    assert detected.cores_per_node == 12 and detected.cores_source
    fixed = parse_system({"name": "x", "node": {"cores": 4}, "filesystems": FS})
    assert fixed.cores_per_node == 4 and fixed.cores_source == ""


@pytest.mark.parametrize("bad", ["auto", "16", 0, -2, 1.5, True])
def test_bad_cores_name_the_value(bad: object) -> None:
    with pytest.raises(ConfigError, match=r"node\.cores"):
        parse_system({"name": "x", "node": {"cores": bad}, "filesystems": FS})

"""One absurd metric value (from a run or ``tell --value``) never decides the recommendation: it is flagged,
listed by ``status``, and the best trial, ``export`` and ``hints`` ignore it; nothing prints a huge number whole."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from autotune.measure import ANY_MAX, BANDWIDTH_MAX, RATIO, implausible
from autotune.testing import assert_clean, model_campaign_data, run_cli, write_campaign_yaml


@pytest.mark.parametrize(("value", "kind", "maximize", "values", "ceiling", "says"), [
    (1e308, "score", True, [], None, "beyond any I/O figure"),
    (-1e300, "score", False, [], None, "beyond any I/O figure"),
    (2 * BANDWIDTH_MAX, "bandwidth", True, [], None, "fastest file system"),
    (5e4, "bandwidth", True, [], 1e3, "aggregate ceiling"),
    (RATIO * 300, "bandwidth", True, [100, 200, 300, RATIO * 300], None, "times the median"),
    (0.001, "time", False, [10, 12, 14, 0.001], None, "of the median"),
])
def test_each_rule_flags(value: float, kind: str, maximize: bool, values: list[float], ceiling: float | None,
                         says: str) -> None:
    why = implausible(value, kind, maximize, values, ceiling)
    assert why is not None and says in why


@pytest.mark.parametrize(("value", "kind", "maximize", "values", "ceiling"), [
    (9e3, "bandwidth", True, [], 1e3),                      # within ten times the model's ceiling
    (RATIO * 100, "bandwidth", True, [100, 1e4], None),   # two trials: no median rule yet
    (50 * 200, "bandwidth", True, [100, 200, 300, 1e4], None),
    (0.5, "time", False, [10, 12, 0.5], None),
    (-3.0, "score", False, [1.0, 2.0, -3.0], None),
    (ANY_MAX, "score", True, [], None),
])
def test_plausible_values_pass(value: float, kind: str, maximize: bool, values: list[float],
                               ceiling: float | None) -> None:
    assert implausible(value, kind, maximize, values, ceiling) is None


def _tuned(tmp_path: Path) -> Path:
    path = write_campaign_yaml(tmp_path / "c.yaml", model_campaign_data(tmp_path / "w", budget={"trials": 4},
                                                              objective={"metric": "write_bandwidth_mib_s",
                                                                         "direction": "maximize", "repeats": 1,
                                                                         "confirm": 0}))
    assert run_cli("tune", str(path)).rc == 0
    return path


@pytest.mark.parametrize("value", ["1e308", "1.7976931348623157e308", "5e9"])
def test_an_absurd_told_value_is_never_the_recommendation(tmp_path: Path, value: str) -> None:
    path = _tuned(tmp_path)
    before = run_cli("export", str(path), "--format", "json").out
    asked = run_cli("ask", str(path), "--explore", "1", "--seed", "3", "--format", "json")
    assert asked.rc == 0, asked.err
    ref = __import__("json").loads(asked.out)["trial"]
    told = run_cli("tell", str(path), "--trial", ref, "--value", value)
    assert_clean(told)
    assert told.rc == 0 and "never recommended" in told.err
    status = run_cli("status", str(path))
    assert status.rc == 0
    number = ref.split(":")[1]
    assert f"not plausible, never recommended: trial {number}:" in status.out
    assert f"best of the search: trial {number}," not in status.out
    assert not re.search(r"\d{20}", status.out)  # no 300-digit speed-up
    assert run_cli("export", str(path), "--format", "json").out == before
    hints = run_cli("hints", str(path))
    assert hints.rc == 0 and f"trial {number} " not in hints.err


def test_a_hundredfold_jump_over_the_median_is_flagged(tmp_path: Path) -> None:
    path = _tuned(tmp_path)
    status = run_cli("status", str(path))
    best = float(status.out.split("write_bandwidth_mib_s = ", 1)[1].split()[0])
    asked = run_cli("ask", str(path), "--explore", "1", "--seed", "3", "--format", "json")
    ref = __import__("json").loads(asked.out)["trial"]
    jump = str(best * RATIO * 2)
    assert math.isfinite(float(jump))
    assert run_cli("tell", str(path), "--trial", ref, "--value", jump).rc == 0
    after = run_cli("status", str(path))
    assert f"not plausible, never recommended: trial {ref.split(':')[1]}:" in after.out
    assert f"write_bandwidth_mib_s = {best:.4g}" in after.out


def test_the_model_ceiling_bounds_a_bandwidth_on_its_target(tmp_path: Path) -> None:
    from dataclasses import replace

    import optuna

    from autotune.campaign import load_campaign
    from autotune.model import physical_ceiling

    path = _tuned(tmp_path)
    c = load_campaign(path)
    ceiling = physical_ceiling(c.app.pattern, c.system, c.fs.name)
    assert ceiling is not None and 1e9 < ceiling < 1e12  # bytes/s: theta's Lustre, 4 client nodes
    assert physical_ceiling(replace(c.app.pattern, sync=False), c.system, c.fs.name) is None  # the page cache
    study = optuna.load_study(study_name="probe", storage=f"sqlite:///{tmp_path / 'w' / 'optuna.db'}")
    stored = study.user_attrs["plausible_max"]
    assert stored == pytest.approx(ceiling / 2**20)
    asked = run_cli("ask", str(path), "--explore", "1", "--seed", "3", "--format", "json")
    ref = __import__("json").loads(asked.out)["trial"]
    told = run_cli("tell", str(path), "--trial", ref, "--value", str(stored * 11))
    assert told.rc == 0 and "aggregate ceiling" in told.err
    assert f"trial {ref.split(':')[1]}: " in run_cli("status", str(path)).out

"""The calibration table passes, and the fit recovers known constants from synthetic runs."""

from __future__ import annotations

import io

import numpy as np
import pytest

from autotune.cli import main
from autotune.errors import ConfigError
from autotune.model import MeasuredRun, NoiseModel, fit_constants, predict
from autotune.model import _scenarios as scenarios
from autotune.model._calibrate import table
from autotune.pattern import IOPattern
from autotune.systems import SystemProfile


def test_every_calibration_row_passes() -> None:
    rows = table()
    assert len(rows) >= 7
    failing = [r.phenomenon for r in rows if not r.passed]
    assert not failing


def test_calibrate_prints_the_table_and_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["model", "calibrate"]) == 0
    out = capsys.readouterr().out
    assert "PASS" in out and "FAIL" not in out and "tolerance" in out


def test_fit_recovers_known_constants(theta: SystemProfile) -> None:
    fs = theta.filesystem("projects")
    from autotune.model import constants_for

    truth = constants_for(theta, fs).with_(ost_write_bw=2.0e9, write_latency=1.5e-3)
    rng = np.random.default_rng(3)
    noise = NoiseModel(spread=0.01, tail_probability=0.0)
    runs = []
    for sc, ss, ranks in ((1, 1 << 20, 64), (4, 4 << 20, 256), (8, 1 << 20, 1024), (16, 8 << 20, 2048),
                          (48, 1 << 20, 4096), (2, 16 << 20, 128)):
        pat = IOPattern(ranks=ranks, nodes=max(1, ranks // 16), bytes_per_rank=16 << 20, transfer_size=16 << 20)
        cfg = {"lustre.stripe_count": sc, "lustre.stripe_size": ss}
        secs = noise.sample(predict(pat, theta, "projects", cfg, constants=truth), rng).seconds
        runs.append(MeasuredRun(pat, cfg, secs))
    fit = fit_constants(runs, theta, ["write_latency", "ost_write_bw"], "projects")
    assert fit.values["write_latency"] == pytest.approx(1.5e-3, rel=0.1)
    assert fit.rms_log_error < 0.05


def test_fit_needs_enough_measurements(theta: SystemProfile) -> None:
    one = [MeasuredRun(scenarios.THETA_IOR, {}, 1.0)]
    with pytest.raises(ConfigError):
        fit_constants(one, theta, ["write_latency", "ost_write_bw"], "projects")


def test_calibrate_writes_to_the_given_stream() -> None:
    from autotune.model import calibrate

    buf = io.StringIO()
    assert calibrate(buf) is True and "rows within tolerance" in buf.getvalue()

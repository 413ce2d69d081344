"""Recommend only what was proven: interleaved confirmation, margin with an interval, ablation of settings."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from autotune.campaign import CampaignLoop, load_campaign, summary_text
from autotune.campaign._confirm import confirm
from autotune.hints import inert
from autotune.space import Config

DEFAULT = {"mpiio.romio_cb_write": "automatic", "mpiio.cb_nodes": 1, "mpiio.romio_ds_write": "automatic"}


def surface(config: Config) -> float:
    """Only cb_nodes matters (x2 at 4); data sieving does nothing."""
    return 100.0 * (2.0 if config["mpiio.cb_nodes"] == 4 else 1.0)


class Bench:
    """A noisy measurement (2% jitter) that records the order of the runs."""

    def __init__(self, truth: Any = surface, jitter: float = 0.02) -> None:
        self.truth, self.jitter, self.calls = truth, jitter, []  # type: ignore[var-annotated]
        self.rng = np.random.default_rng(0)

    def __call__(self, config: Config, is_default: bool, number: int) -> float:
        self.calls.append((dict(config), number))
        return self.truth(config) * (1 + self.jitter * self.rng.standard_normal())


def test_the_rounds_are_interleaved_and_rotated() -> None:
    a = {**DEFAULT, "mpiio.cb_nodes": 4}
    b = {**DEFAULT, "mpiio.cb_nodes": 2}
    bench = Bench()
    confirm(DEFAULT, [(3, a), (5, b)], 3, bench, maximize=True)
    first9 = [c["mpiio.cb_nodes"] for c, _ in bench.calls[:9]]
    assert first9 == [1, 4, 2, 4, 2, 1, 2, 1, 4]  # D A B, A B D, B D A
    assert len({n for _, n in bench.calls}) == len(bench.calls)  # every run has its own directory


def test_the_winner_has_a_margin_with_an_interval_and_only_settings_that_matter_are_kept() -> None:
    winner = {**DEFAULT, "mpiio.cb_nodes": 4, "mpiio.romio_ds_write": "enable"}
    conf = confirm(DEFAULT, [(7, winner)], 5, Bench(), maximize=True)
    assert conf.winner == "trial 7" and conf.proven
    assert 0.8 < conf.low < conf.margin < conf.high < 1.2  # about +100%
    assert conf.recommended == {"mpiio.cb_nodes": 4}
    assert "mpiio.romio_ds_write" in conf.dropped and "within the jitter" in conf.dropped["mpiio.romio_ds_write"]
    assert conf.ablation["mpiio.cb_nodes"]["low"] > 0


def test_settings_that_cannot_act_are_dropped_without_measuring() -> None:
    winner = {**DEFAULT, "mpiio.romio_cb_write": "disable", "mpiio.cb_nodes": 4}
    conf = confirm(DEFAULT, [(2, winner)], 3, Bench(lambda c: 300.0 if c["mpiio.romio_cb_write"] == "disable" else 100.0),
                   maximize=True)
    assert conf.recommended == {"mpiio.romio_cb_write": "disable"}
    assert "aggregators do not exist" in conf.dropped["mpiio.cb_nodes"]
    assert not conf.ablation


def test_a_gain_within_the_jitter_recommends_the_default() -> None:
    lucky = {**DEFAULT, "mpiio.romio_ds_write": "disable"}  # no real effect, 20% jitter
    conf = confirm(DEFAULT, [(4, lucky)], 3, Bench(jitter=0.2), maximize=True)
    assert not conf.proven and conf.recommended == {}
    assert conf.low <= 0 <= conf.high or conf.winner == "default"
    assert any("keep the system's defaults" in ln for ln in conf.lines("bw"))


@pytest.mark.slow
def test_a_real_local_campaign_ends_with_a_confirmation_and_exports_only_what_matters(tmp_path: Path) -> None:
    data = {
        "name": "confirmed",
        "app": {"kernel": "ior", "ranks": 2, "args": {"block_size": "2MiB", "transfer_size": "64KiB",
                                                       "layout": "strided", "phases": ["write"]}},
        "system": "local", "space": {"use": "local-romio", "only": ["mpiio.romio_cb_write", "mpiio.cb_nodes",
                                                                   "mpiio.romio_ds_write"]},
        "objective": {"metric": "write_bandwidth_mib_s", "repeats": 1, "confirm": 3},
        "budget": {"trials": 5, "run_timeout": "60s"}, "sampler": {"name": "random", "seed": 2},
        "launcher": {"name": "local", "python": sys.executable},
        "workdir": str(tmp_path / "work"), "tracking": {"enabled": False},
    }
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(data))
    out = tmp_path / "out.txt"
    with out.open("w") as f:
        res = CampaignLoop(load_campaign(path), progress=False, out=f).run()
    conf = res.study.user_attrs["confirmation"]
    assert conf["rounds"] == 3 and conf["candidates"][0]["label"] == "default"
    assert all(len(c["values"]) == 3 for c in conf["candidates"])
    assert conf["low"] <= conf["margin"] <= conf["high"]
    assert "confirming: the top configurations and the default, 3 interleaved rounds" in out.read_text()
    text = summary_text(res.runtime, res.study)  # what `autotune tune` prints at the end
    assert "confirmation: 3 interleaved rounds" in text and "95% interval" in text
    assert "recommended settings" in text
    rec = res.summary["recommended_config"]
    default = res.runtime.space.default_config()
    assert all(default.get(k) != v for k, v in rec.items())  # only settings that differ from the default
    assert not inert(rec)  # and none that cannot act
    assert set(rec) <= set(conf["recommended"])
    if conf["low"] <= 0:
        assert rec == {} and res.summary["recommended_is_default"]
    data_dir = tmp_path / "work" / "data"
    assert not data_dir.exists() or not os.listdir(data_dir)  # the confirmation's runs leave no data either

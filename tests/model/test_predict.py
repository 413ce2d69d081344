"""predict / simulate_run: structure, explanation, record format, speed."""

from __future__ import annotations

import json
import time

import numpy as np

from autotune.model import RESOURCES, predict, simulate_run
from autotune.model import _scenarios as scenarios
from autotune.systems import SystemProfile, load_system


def test_terms_add_up_and_name_known_resources(theta: SystemProfile) -> None:
    pred = predict(scenarios.THETA_IOR.with_(phases=("write", "read")), theta, "projects", {"lustre.stripe_count": 48})
    assert [p.op for p in pred.phases] == ["write", "read"]
    for ph in pred.phases:
        assert abs(sum(t.seconds for t in ph.terms) - ph.seconds) < 1e-12
        assert all(t.resource in RESOURCES for t in ph.terms)
        assert ph.bandwidth_mib_s == ph.bytes / 2**20 / ph.seconds
    assert abs(pred.bandwidth_gb_s * 1e9 / 2**20 - pred.bandwidth_mib_s) < 1e-6
    text = pred.explain()
    assert "bound by" in text and "aggregator writes" in text


def test_prediction_is_deterministic(theta: SystemProfile) -> None:
    cfg = {"lustre.stripe_count": 32, "lustre.stripe_size": 4 << 20}
    first = predict(scenarios.THETA_IOR, theta, "projects", cfg).seconds
    assert first == predict(scenarios.THETA_IOR, theta, "projects", cfg).seconds


def test_simulate_run_record_format(theta: SystemProfile) -> None:
    pat = scenarios.THETA_IOR.with_(phases=("write", "read"))
    rec = simulate_run(pat, theta, "projects", {"lustre.stripe_count": 48}, rng=np.random.default_rng(0), noise=False)
    json.dumps(rec)
    assert rec["autotune_record"] == 1 and rec["kernel"] == "model"
    assert (rec["ranks"], rec["nodes"], rec["bytes"]) == (4096, 256, pat.data_bytes)
    m = rec["metrics"]
    total = sum(p["bytes"] for p in rec["phases"].values())
    assert abs(m["bandwidth_mib_s"] - total / 2**20 / m["seconds"]) < 1e-6
    assert m["seconds"] == m["write_seconds"] + m["read_seconds"]
    assert rec["aggregators"] == 48 and rec["hints_in_effect"]["striping_factor"] == 48
    assert rec["hints_requested"] == {"lustre.stripe_count": 48} and rec["explanation"]


def test_simulate_run_noise_is_seeded(theta: SystemProfile) -> None:
    a = simulate_run(scenarios.THETA_IOR, theta, "projects", {}, rng=5, noise=True)
    b = simulate_run(scenarios.THETA_IOR, theta, "projects", {}, rng=5, noise=True)
    c = simulate_run(scenarios.THETA_IOR, theta, "projects", {}, rng=5, noise=False)
    assert a["metrics"] == b["metrics"] and a["metrics"] != c["metrics"]


def test_local_posix_profile() -> None:
    local = load_system("local")
    pred = predict(scenarios.THETA_IOR.with_(ranks=2, nodes=1), local, None)
    assert pred.kind == "posix" and pred.seconds > 0


def test_thousands_of_evaluations_per_second(theta: SystemProfile) -> None:
    n, start = 0, time.perf_counter()
    while n < 2000:
        predict(scenarios.THETA_IOR, theta, "projects", {"lustre.stripe_count": 1 + n % 56})
        n += 1
    assert n / (time.perf_counter() - start) > 1000

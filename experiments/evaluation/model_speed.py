"""How many model evaluations per second: predictions and noisy simulated runs over varied configurations.

Run: .venv/bin/python experiments/evaluation/model_speed.py
"""

from __future__ import annotations

import time

import numpy as np

from autotune.model import predict, scenarios, simulate_run


def main(seconds: float = 2.0) -> None:
    theta = scenarios.system("theta")
    cori = scenarios.system("cori")
    rng = np.random.default_rng(0)
    cases = []
    for i in range(64):
        cfg = {"lustre.stripe_count": int(rng.integers(1, 57)), "lustre.stripe_size": int(2 ** rng.integers(20, 26)),
               "cray.cb_nodes_multiplier": int(rng.integers(1, 5)), "cray.cb_write_lock_mode": int(rng.integers(0, 2)),
               "mpiio.romio_no_indep_rw": "true", "mpiio.romio_cb_write": ["automatic", "disable"][i % 2]}
        cases.append((scenarios.THETA_IOR, theta, "projects", cfg))
        cases.append((scenarios.VPIC_SMALL, cori, "bb", {"bb.nodes": int(rng.integers(8, 100)),
                                                          "mpiio.cb_nodes": int(rng.integers(8, 129))}))
    for name, fn in (("predict", lambda c: predict(*c)),
                     ("simulate_run (noise on)", lambda c: simulate_run(*c, rng=rng, noise=True))):
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            for c in cases:
                fn(c)
            n += len(cases)
        rate = n / (time.perf_counter() - start)
        print(f"{name}: {rate:,.0f} evaluations/second")


if __name__ == "__main__":
    main()

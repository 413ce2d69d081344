"""Physics that cannot lie: aggregate ceilings, the flush inside the timed region, monotonicity."""

from __future__ import annotations

import numpy as np
import pytest

from autotune.errors import ConfigError
from autotune.model import Constants, constants_for, predict
from autotune.model import _scenarios as scenarios
from autotune.model._bounds import aggregate_limits
from autotune.model._constants import derived_stream
from autotune.model._lustre import lock_cost, lock_switches
from autotune.model._mpiio import exchange_time
from autotune.model._settings import settings_in_effect
from autotune.pattern import IOPattern
from autotune.systems import SystemProfile, effective_stripe_count, parse_pfl

MIB = 1 << 20
SYSTEMS = (("theta", "projects"), ("shaheen2", "scratch"), ("cori", "scratch"), ("cori", "bb"), ("shaheen2", "bb"),
           ("local", "disk"))


def _random_case(rng: np.random.Generator) -> tuple[str, str, IOPattern, dict[str, object]]:
    system, fs = SYSTEMS[int(rng.integers(len(SYSTEMS)))]
    nodes = int(2 ** rng.integers(0, 9))
    ranks = nodes * int(2 ** rng.integers(0, 5))
    ts = int(2 ** rng.integers(12, 25))
    layout = str(rng.choice(["contiguous", "strided"]))
    pat = IOPattern(ranks=ranks, nodes=nodes, bytes_per_rank=ts * int(2 ** rng.integers(0, 6)), transfer_size=ts,
                    layout=layout, file_mode=str(rng.choice(["shared", "fpp"])),
                    io_mode=str(rng.choice(["collective", "independent"])),
                    library=str(rng.choice(["mpiio", "hdf5"])), sync=bool(rng.random() < 0.7),
                    piece_size=int(2 ** rng.integers(3, 12)) if layout == "strided" else 0)
    cfg: dict[str, object] = {"mpiio.romio_cb_write": str(rng.choice(["automatic", "enable", "disable"])),
                              "mpiio.cb_nodes": int(2 ** rng.integers(0, 8))}
    if fs in ("projects", "scratch"):
        cfg["lustre.stripe_count"] = int(2 ** rng.integers(0, 8))
        cfg["lustre.stripe_size"] = int(2 ** rng.integers(16, 26))
    return system, fs, pat, cfg


def test_no_prediction_beats_the_aggregate_ceiling_when_the_flush_is_timed() -> None:
    rng = np.random.default_rng(11)
    checked = 0
    for _ in range(400):
        system, fs_name, pat, cfg = _random_case(rng)
        prof = scenarios.system(system)
        fs = prof.filesystem(fs_name)
        try:
            pred = predict(pat, prof, fs_name, cfg)
        except ConfigError:
            continue  # a BB allocation too small for the data is refused, not predicted
        c = constants_for(prof, fs)
        r, _ = settings_in_effect(cfg, prof, fs, pat, c)
        ceiling = min(lim.bytes_per_s for lim in aggregate_limits(pat, r, c, fs, "write"))
        bw = pred.phase("write").bytes / pred.phase("write").seconds
        if pat.sync or fs.kind == "datawarp":
            assert bw <= ceiling * (1 + 1e-9), (system, fs_name, pat, cfg)
        checked += 1
    assert checked > 300


def test_client_cache_beats_the_servers_only_when_the_flush_is_untimed(theta: SystemProfile) -> None:
    pat = IOPattern(ranks=4096, nodes=256, bytes_per_rank=16 * MIB, transfer_size=16 * MIB, file_mode="fpp",
                    io_mode="independent", sync=False)
    cached = predict(pat, theta, "projects")
    synced = predict(pat.with_(sync=True), theta, "projects")
    peak = 56 * constants_for(theta, theta.filesystem("projects")).ost_write_bw
    assert cached.bandwidth_gb_s * 1e9 > peak  # ALCF Theta I/O talk: caching scales "past OST HDD max BW"
    assert synced.bandwidth_gb_s * 1e9 <= peak
    assert synced.phase("write").term("client cache") is None


def test_stripe_count_never_slows_a_synced_fpp_write(theta: SystemProfile) -> None:
    pat = IOPattern(ranks=64, nodes=4, bytes_per_rank=256 * MIB, transfer_size=4 * MIB, file_mode="fpp",
                    io_mode="independent")
    times = [predict(pat, theta, "projects", {"lustre.stripe_count": sc}).seconds for sc in (1, 2, 4)]
    assert times == sorted(times, reverse=True) or max(times) / min(times) < 1.01


def test_gather_cost_grows_as_pieces_shrink_and_falls_with_aggregators() -> None:
    c = Constants()
    base = IOPattern(ranks=1024, nodes=32, bytes_per_rank=MIB, transfer_size=MIB, layout="strided")
    by_piece = [exchange_time(base.with_(piece_size=ps), c, 1024 * MIB, 32) for ps in (8, 64, 4096, MIB)]
    assert by_piece == sorted(by_piece, reverse=True)
    assert by_piece[0] > 10 * by_piece[-1]
    by_aggs = [exchange_time(base.with_(piece_size=64), c, 1024 * MIB, a) for a in (1, 4, 32, 128)]
    assert by_aggs == sorted(by_aggs, reverse=True)


def test_lock_hand_overs_grow_with_the_clients_per_ost() -> None:
    pat = IOPattern(ranks=256, nodes=16, bytes_per_rank=64 * MIB, transfer_size=MIB)
    counts = [lock_switches(Constants(), pat, MIB, 8, k) for k in (1, 2, 8, 32)]
    assert counts[0] == 0 and counts == sorted(counts)
    assert lock_cost(Constants(), 1) == 0 and lock_cost(Constants(), 4) > 0


def test_stream_comes_from_the_profile_not_one_shaheen_writer() -> None:
    c = Constants()
    slow, fast = derived_stream(c.with_(ost_write_bw=1e9)), derived_stream(c.with_(ost_write_bw=20e9))
    assert slow < derived_stream(c.with_(ost_write_bw=3.47e9)) < fast <= c.client_stream
    assert derived_stream(c.with_(ost_write_bw=3.47e9)) == pytest.approx(1.2e9, rel=0.01)  # KAUST Shaheen II training


def test_pfl_acts_as_its_bottleneck_component(shaheen: SystemProfile) -> None:
    comps = parse_pfl("1GiB:1,8GiB:4,eof:16")
    assert effective_stripe_count(comps, 0.5e9, 144) == 1
    assert effective_stripe_count(comps, 361e9, 144) == 16
    small = predict(scenarios.SHAHEEN_RESTART, shaheen, "scratch", {"lustre.pfl": "1GiB:1,eof:1"})
    wide = predict(scenarios.SHAHEEN_RESTART, shaheen, "scratch", {"lustre.pfl": "1GiB:1,8GiB:4,eof:64"})
    assert wide.hints_in_effect["striping_factor"] == 64 and wide.seconds < small.seconds / 10
    for bad in ("1GiB:1", "1GiB:x,eof:2", "2GiB:1,1GiB:2,eof:4", "eof:0", "nonsense"):
        with pytest.raises(ConfigError):
            parse_pfl(bad)


def test_published_figures_are_predicted_and_never_above_the_systems_peak() -> None:
    from autotune.model._outofsample import FIGURES, rows

    table = rows()
    assert len(table) == len(FIGURES) >= 6 and len({f.system for f in FIGURES}) >= 3
    for f in FIGURES:
        prof = scenarios.system(f.system)
        fs = prof.filesystem(f.fs)
        c = constants_for(prof, fs)
        peak = (fs.osts or 1) * c.ost_write_bw
        assert predict(f.pattern, prof, f.fs, f.config).bandwidth_gb_s * 1e9 <= peak * (1 + 1e-9)

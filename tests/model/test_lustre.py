"""Lustre mechanisms: stripes over OSTs, server/client limits, lock contention, client cache."""

from __future__ import annotations

import pytest

from autotune.errors import ConfigError
from autotune.model import Constants, predict
from autotune.model import _scenarios as scenarios
from autotune.model._lustre import cache_capacity, client_request, lock_switches, ost_rate
from autotune.pattern import IOPattern
from autotune.systems import SystemProfile

MIB = 1 << 20
BIG = IOPattern(ranks=4096, nodes=256, bytes_per_rank=64 * MIB, transfer_size=8 * MIB, io_mode="independent",
                file_mode="fpp")


def test_more_osts_never_slower_and_never_beyond_server_or_client_limits(shaheen: SystemProfile) -> None:
    fs = shaheen.filesystem("scratch")
    pat = scenarios.SHAHEEN_RESTART
    prev = 0.0
    for sc in (1, 2, 4, 8, 16, 32, 64, 144):
        pred = predict(pat, shaheen, "scratch", {"lustre.stripe_count": sc})
        bw = pred.bandwidth_gb_s * 1e9
        assert bw >= prev
        c = Constants().with_(ost_write_bw=3.47e9)
        assert bw <= sc * c.ost_write_bw and bw <= (fs.oss or 1) * c.oss_bw
        assert bw <= pat.nodes * c.node_bw
        prev = bw


def test_stripe_count_is_capped_at_the_ost_count(theta: SystemProfile) -> None:
    pred = predict(scenarios.THETA_IOR, theta, "projects", {"lustre.stripe_count": 500})
    assert pred.hints_in_effect["striping_factor"] == 56


def test_fpp_bandwidth_is_bounded_by_client_injection(theta: SystemProfile) -> None:
    few = IOPattern(ranks=2, nodes=1, bytes_per_rank=8 << 30, transfer_size=8 * MIB, io_mode="independent",
                    file_mode="fpp")
    c = Constants().with_(cpu_factor=0.435)
    bw = predict(few, theta, "projects").bandwidth_gb_s * 1e9
    assert bw <= c.node_bw * c.cpu_factor * 1.0001


def test_client_request_amortises_latency() -> None:
    c = Constants()
    rates = [s / client_request(c, s, "write") for s in (64 << 10, MIB, 8 * MIB, 64 * MIB)]
    assert rates == sorted(rates) and rates[-1] < c.write_stream


def test_ost_interleaving_costs_a_seek() -> None:
    c = Constants()
    assert ost_rate(c, "write", MIB, 1) == c.ost_write_bw
    assert ost_rate(c, "write", MIB, 4) < c.ost_write_bw
    assert ost_rate(c, "write", 8 * MIB, 4) > ost_rate(c, "write", MIB, 4)


def test_lock_switches_only_with_more_than_one_client_per_ost() -> None:
    c = Constants()
    pat = scenarios.THETA_XFER  # IOR segments: each transfer is a region of its own
    assert lock_switches(c, pat, MIB, 48, 1.0) == 0.0
    small = lock_switches(c, pat.with_(transfer_size=100_000), MIB, 48, 85.0)
    large = lock_switches(c, pat.with_(transfer_size=16 * MIB), MIB, 48, 85.0)
    assert small > large > 0


def test_shared_lock_mode_relieves_contention_only_for_all_collective(theta: SystemProfile) -> None:
    base = {"lustre.stripe_count": 48, "cray.cb_nodes_multiplier": 4}
    shared = {**base, "cray.cb_write_lock_mode": 1, "mpiio.romio_no_indep_rw": "true"}
    mpiio = scenarios.THETA_IOR
    assert predict(mpiio, theta, "projects", shared).seconds < predict(mpiio, theta, "projects", base).seconds
    assert predict(mpiio, theta, "projects", shared).hints_in_effect["cray_cb_write_lock_mode"] == 1
    hdf5 = mpiio.with_(library="hdf5")  # HDF5 metadata is independent: the mode cannot apply
    assert predict(hdf5, theta, "projects", shared).seconds == predict(hdf5, theta, "projects", base).seconds
    assert predict(hdf5, theta, "projects", shared).hints_in_effect["cray_cb_write_lock_mode"] == 0
    no_flag = {**base, "cray.cb_write_lock_mode": 1}
    assert predict(mpiio, theta, "projects", no_flag).seconds == predict(mpiio, theta, "projects", base).seconds


def test_contention_shows_in_the_explanation(theta: SystemProfile) -> None:
    pat = scenarios.THETA_XFER.with_(transfer_size=100_000, io_mode="independent")
    pred = predict(pat, theta, "projects", scenarios.THETA_XFER_CFG)
    assert pred.phase("write").bound == "lock contention"
    assert "extent locks" in pred.explain()


def test_fpp_has_no_lock_contention_but_pays_metadata(theta: SystemProfile) -> None:
    fpp = scenarios.THETA_IOR.with_(file_mode="fpp", io_mode="independent")
    ph = predict(fpp, theta, "projects").phase("write")
    assert ph.term("extent locks") is None
    more = predict(fpp.with_(ranks=8192, nodes=512), theta, "projects").phase("write")
    assert more.term("open/create").seconds > ph.term("open/create").seconds  # type: ignore[union-attr]


def test_client_cache_grows_with_osts_and_is_capped() -> None:
    c = Constants()
    assert cache_capacity(c, 1) < cache_capacity(c, 8) <= c.node_dirty_max
    assert cache_capacity(c, 10_000) == c.node_dirty_max


def test_slow_osts_make_full_width_striping_worse(theta: SystemProfile) -> None:
    bw = {sc: predict(scenarios.THETA_IOR, theta, "projects", {"lustre.stripe_count": sc, "lustre.stripe_size": 8 * MIB}
                      ).bandwidth_gb_s for sc in (40, 48, 56)}
    assert bw[48] > bw[40] and bw[48] > bw[56]


def test_reads_have_no_lock_contention(theta: SystemProfile) -> None:
    pat = scenarios.THETA_XFER.with_(transfer_size=100_000, io_mode="independent", phases=("read",))
    pred = predict(pat, theta, "projects", scenarios.THETA_XFER_CFG)
    assert pred.phase("read").term("extent locks") is None


def test_files_per_process_sharing_an_ost_pay_no_seek_but_a_shared_file_does(shaheen: SystemProfile) -> None:
    """ALCF Theta I/O talk: FPP scales as ranks exceed OSTs (separate objects, each sequential); interleaving clients
    in one object pay repositioning. Both stay under the OSTs' aggregate rate."""
    c = Constants()
    fs = shaheen.filesystem("scratch")
    osts = fs.osts or 1
    many = IOPattern(ranks=osts * 16, nodes=osts, bytes_per_rank=1 << 30, transfer_size=MIB, file_mode="fpp",
                     io_mode="independent", library="posix", sync=True)
    fpp = predict(many, shaheen, "scratch", {"lustre.stripe_count": 1}).bandwidth_gb_s * 1e9
    shared = IOPattern(ranks=osts * 16, nodes=osts, bytes_per_rank=1 << 30, transfer_size=MIB,
                       io_mode="independent", library="posix", sync=True)
    one = predict(shared, shaheen, "scratch", {"lustre.stripe_count": osts}).bandwidth_gb_s * 1e9
    ceiling = osts * 3.47e9  # Shaheen's OST rate (profile)
    assert fpp <= ceiling * 1.0001
    assert fpp >= 0.8 * ceiling > osts * ost_rate(c.with_(ost_write_bw=3.47e9), "write", MIB, 16.0)
    assert one < 0.8 * fpp


def test_published_figures_beyond_the_seeds_never_exceed_the_systems_aggregate_limits() -> None:
    from autotune.model._bounds import aggregate_limits
    from autotune.model._constants import constants_for
    from autotune.model._outofsample import FIGURES
    from autotune.model._settings import settings_in_effect

    for f in FIGURES:
        system = scenarios.system(f.system)
        fs = system.filesystem(f.fs)
        bw = predict(f.pattern, system, f.fs, f.config).bandwidth_gb_s * 1e9
        c = constants_for(system, fs)
        r, _ = settings_in_effect(f.config, system, fs, f.pattern, c)
        assert bw <= min(lim.bytes_per_s for lim in aggregate_limits(f.pattern, r, c, fs, "write")) * 1.0001, f.label


def test_a_block_size_larger_than_the_rank_bytes_is_refused() -> None:
    with pytest.raises(ConfigError, match="block_size"):
        IOPattern(ranks=2, bytes_per_rank=MIB, block_size=2 * MIB)
    assert IOPattern(ranks=2, bytes_per_rank=4 * MIB).block == 4 * MIB
    assert IOPattern.from_dict({"ranks": 2, "bytes_per_rank": "4MiB", "block_size": "1MiB"}).block == MIB

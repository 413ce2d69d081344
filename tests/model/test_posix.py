"""The local (POSIX) model: page cache, write-back, data sieving and two-phase I/O rank configurations."""

from __future__ import annotations

import pytest

from autotune.model import _scenarios as scenarios
from autotune.model import constants_for, predict
from autotune.optimize import model_ranked
from autotune.pattern import IOPattern
from autotune.space import load_space

MIB = 1 << 20
# upstream IOR: 4 ranks, one shared file, 64 MiB block per rank in 1 MiB transfers (collective MPI-IO)
IOR = IOPattern(ranks=4, nodes=1, bytes_per_rank=64 * MIB, transfer_size=MIB)
COLUMNS = IOPattern(ranks=4, nodes=1, bytes_per_rank=64 * MIB, transfer_size=64 * MIB, layout="strided",
                    piece_size=8192, library="hdf5")


def _bw(pat: IOPattern, cfg: dict[str, object], fs: str = "disk") -> float:
    return predict(pat, scenarios.system("local"), fs, cfg).bandwidth_mib_s


def test_configurations_are_ranked_not_all_equal() -> None:
    values = {round(_bw(IOR, {"mpiio.romio_cb_write": v, "mpiio.cb_nodes": n}), 3)
              for v in ("automatic", "enable", "disable") for n in (1, 2, 4)}
    assert len(values) >= 3


def test_two_phase_with_holes_is_far_slower_for_ior_blocks() -> None:
    # PLATFORM.md: ~50x between enable and disable for this IOR here; the model must see >10x
    assert _bw(IOR, {"mpiio.romio_cb_write": "disable"}) > 10 * _bw(IOR, {"mpiio.romio_cb_write": "enable"})
    # ROMIO's automatic exchanges offsets first, then writes independently: a little slower than disable
    assert _bw(IOR, {"mpiio.romio_cb_write": "automatic"}) < _bw(IOR, {"mpiio.romio_cb_write": "disable"})


def test_more_aggregators_help_a_gather_bound_strided_write_up_to_the_cores() -> None:
    bws = [_bw(COLUMNS, {"mpiio.romio_cb_write": "enable", "mpiio.cb_nodes": n}) for n in (1, 2, 4)]
    assert bws[0] < bws[1] <= bws[2] * 1.001
    assert _bw(COLUMNS, {"mpiio.romio_cb_write": "disable"}) > bws[0]  # PLATFORM.md: 500+ vs 77 MiB/s


def test_the_flush_is_paid_only_inside_the_timed_region() -> None:
    cfg = {"mpiio.romio_cb_write": "disable"}
    synced, cached = _bw(IOR, cfg), _bw(IOR.with_(sync=False), cfg)
    assert cached > synced
    assert predict(IOR.with_(sync=False), scenarios.system("local"), "disk", cfg).phase("write").term("write-back") is None


def test_ior_as_an_opaque_command_gets_disable_among_the_first_model_picks() -> None:
    system = scenarios.system("local")
    space = load_space("local-romio").bind(system, system.filesystem("disk"), IOR)
    top = model_ranked(space, "seconds", False, top=3)
    assert any(cfg.get("mpiio.romio_cb_write") == "disable" for cfg in top)
    assert all(cfg.get("mpiio.romio_cb_write") != "enable" for cfg in top)


def _secs(pat: IOPattern, cfg: dict[str, object], **constants: float) -> float:
    system = scenarios.system("local")
    base = constants_for(system, system.filesystem("disk"))
    return predict(pat, system, "disk", cfg, constants=base.with_(**constants)).seconds


def test_collectives_cost_a_scheduler_wait_only_on_an_oversubscribed_node() -> None:
    off, auto = {"mpiio.romio_cb_write": "disable"}, {"mpiio.romio_cb_write": "automatic"}
    two = IOPattern(ranks=2, nodes=1, bytes_per_rank=64 * MIB, transfer_size=MIB)  # 2 ranks on 2 cores
    # automatic exchanges offsets once per call: on idle cores that costs microseconds ...
    assert _secs(two, auto) == pytest.approx(_secs(two, off), rel=0.01)
    # ... with 4 ranks on 2 cores each exchange waits for the scheduler (16 calls here)
    assert _secs(IOR, auto) > _secs(IOR, off) + 16 * 0.5 * constants_for(
        scenarios.system("local"), scenarios.system("local").filesystem("disk")).oversub_slice


def test_more_oversubscription_costs_more_and_file_per_process_pays_no_collectives() -> None:
    fpp = IOR.with_(file_mode="fpp", io_mode="independent")
    for pat, cfg in ((IOR, {"mpiio.romio_cb_write": "enable"}), (COLUMNS, {"mpiio.romio_cb_write": "disable"})):
        assert _secs(pat, cfg, oversub_slice=0.02) > _secs(pat, cfg, oversub_slice=0.002)
    assert _secs(fpp, {}, oversub_slice=0.02) == pytest.approx(_secs(fpp, {}, oversub_slice=0.002))
    eight = IOR.with_(ranks=8, bytes_per_rank=IOR.bytes_per_rank // 2)  # the same bytes over 4 ranks per core
    auto = {"mpiio.romio_cb_write": "automatic"}
    assert _secs(eight, auto) > _secs(IOR, auto)


def test_hdf5_pays_metadata_collectives_per_dataset() -> None:
    one = IOPattern(ranks=4, nodes=1, bytes_per_rank=8 * MIB, transfer_size=8 * MIB, library="hdf5")
    eight = one.with_(transfer_size=MIB)  # VPIC-like: eight datasets of 1 MiB per rank
    cfg = {"mpiio.romio_cb_write": "disable"}
    meta = [predict(p, scenarios.system("local"), "disk", cfg).phase("write").term("HDF5 metadata") for p in (one, eight)]
    assert meta[0] is not None and meta[1] is not None and meta[1].seconds > meta[0].seconds
    plain = predict(one.with_(library="mpiio"), scenarios.system("local"), "disk", cfg)
    assert plain.phase("write").term("HDF5 metadata") is None


def test_write_back_is_no_faster_than_the_device_nor_one_file_flush() -> None:
    system = scenarios.system("local")
    c = constants_for(system, system.filesystem("disk"))
    for pat in (IOR, IOR.with_(file_mode="fpp", io_mode="independent"), IOR.with_(ranks=2)):
        wb = predict(pat, system, "disk", {"mpiio.romio_cb_write": "disable"}).phase("write").term("write-back")
        files = pat.ranks if pat.file_mode == "fpp" else 1
        assert wb is not None
        assert wb.seconds >= pat.data_bytes / c.posix_bw * (1 - 1e-9)
        assert wb.seconds >= pat.data_bytes / files / c.posix_file_bw * (1 - 1e-9)
    shared = predict(IOR, system, "disk", {"mpiio.romio_cb_write": "disable"}).phase("write").term("write-back")
    fpp = predict(IOR.with_(file_mode="fpp", io_mode="independent"), system, "disk", {}).phase("write").term("write-back")
    assert shared is not None and fpp is not None and fpp.seconds <= shared.seconds


def test_hdf5_datasets_are_laid_out_rank_after_rank_without_holes() -> None:
    # VPIC: eight datasets (one per variable), each written by one call with the ranks' pieces adjacent;
    # the same calls through MPI-IO blocks (IOR) span the gaps between the ranks' blocks
    vpic = IOPattern(ranks=2, nodes=1, bytes_per_rank=8 * MIB, transfer_size=MIB, library="hdf5")
    cfg = {"mpiio.romio_cb_write": "enable", "mpiio.cb_nodes": 1, "mpiio.cb_buffer_size": MIB}
    h5 = predict(vpic, scenarios.system("local"), "disk", cfg).phase("write").term("aggregator writes")
    ior = predict(vpic.with_(library="mpiio"), scenarios.system("local"), "disk", cfg).phase("write").term("aggregator writes")
    assert h5 is not None and ior is not None
    assert "holes" not in h5.detail and h5.seconds < ior.seconds

"""The Open MPI space: each io component's settings only while it runs, OMPIO's aggregators within the ranks."""

from __future__ import annotations

from pathlib import Path

from autotune.model import cannot_judge
from autotune.pattern import IOPattern
from autotune.space import load_space
from autotune.systems import load_system
from autotune.testing import local_system_file

PAT = IOPattern(ranks=4, bytes_per_rank=4 << 20)


def bound(tmp_path: Path, flavour: str):  # type: ignore[no-untyped-def]
    system = load_system(str(local_system_file(tmp_path, flavour)))
    return load_space("local-openmpi").bind(system, system.filesystem("disk"), PAT)


def broken(space, **changes: object) -> set[str]:  # type: ignore[no-untyped-def]
    config = {**space.default_config(), **{k.replace("__", "."): v for k, v in changes.items()}}
    return {k for k, v in space.violations(config).items() if v > 0}


def test_each_component_keeps_the_other_ones_settings_at_their_defaults(tmp_path: Path) -> None:
    space = bound(tmp_path, "openmpi")
    assert broken(space) == set()
    assert broken(space, ompi__fcoll="individual") == set()
    assert broken(space, mpiio__romio_cb_write="disable") == {"romio_hints_need_romio"}
    assert broken(space, ompi__io="romio321", mpiio__romio_cb_write="disable") == set()
    assert broken(space, ompi__io="romio321", ompi__fcoll="individual") == {"ompio_knobs_need_ompio"}
    assert all(p.contains(p.values()[-1]) for p in space.active)
    assert max(next(p for p in space.active if p.name == "ompi.num_aggregators").values()) == 4


def test_on_mpich_open_mpi_parameters_are_not_searched(tmp_path: Path) -> None:
    space = bound(tmp_path, "mpich")
    assert {p.name for p in space.active} == {"mpiio.romio_cb_write", "mpiio.cb_nodes"}
    assert any(n.startswith("ompi.io: not searched") for n in space.notices)


def test_the_model_says_it_cannot_judge_open_mpi_knobs() -> None:
    assert set(cannot_judge(["ompi.fcoll", "ompi.io", "mpiio.cb_nodes", "lustre.stripe_count"])) == {"ompi.fcoll",
                                                                                                    "ompi.io"}


def test_the_model_picks_leave_open_mpi_knobs_to_the_sampler(tmp_path: Path) -> None:
    import optuna

    from autotune.campaign import Runtime, parse_campaign
    from autotune.optimize import initial_configs

    data = {"name": "ompi-start", "app": {"kernel": "ior", "ranks": 4, "args": {"block_size": "2MiB",
                                                                             "layout": "strided"}},
            "system": str(local_system_file(tmp_path, "openmpi")), "target": {"filesystem": "disk"},
            "space": "local-openmpi", "objective": {"metric": "write_bandwidth_mib_s"},
            "tracking": {"enabled": False}, "workdir": str(tmp_path / "work")}
    c = parse_campaign(data, tmp_path)
    rt = Runtime.build(c)
    assert any(n.startswith("ompi.io, ompi.fcoll, ompi.num_aggregators, ompi.bytes_per_agg: the model has no term")
               for n in rt.space.notices)
    picks = initial_configs(c, rt.space, optuna.create_study(direction="maximize"))
    assert picks and all(not any(k.startswith("ompi.") for k in cfg) for cfg in picks)

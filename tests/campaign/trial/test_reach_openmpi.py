"""What a command can receive under Open MPI: MPI-IO hints only through ROMIO (a ROMIO_HINTS file), so under OMPIO
they are not passed and not searched; a trial leaves unset what the default leaves unset; AUTOTUNE_PARAM_* only
for the settings a trial passes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from autotune.campaign import Runtime, load_campaign
from autotune.launch import param_env
from autotune.testing import local_system_file


def _runtime(make_campaign: Any, tmp_path: Path, **over: Any) -> Runtime:
    system = str(local_system_file(tmp_path, "openmpi"))
    return Runtime.build(load_campaign(make_campaign(system=system, **over)))


def test_mpiio_hints_are_not_searched_for_a_command_under_ompio(make_campaign: Any, tmp_path: Path) -> None:
    rt = _runtime(make_campaign, tmp_path, space={"use": "local-openmpi", "fixed": {"ompi.io": "ompio"}})
    active = {p.name for p in rt.space.active}
    assert not any(n.startswith("mpiio.") for n in active) and "ompi.fcoll" in active
    notice = next(n for n in rt.space.notices if n.startswith("mpiio.cb_nodes"))
    assert "not passed, so not searched" in notice and "OMPIO reads no ROMIO_HINTS file" in notice
    assert "AUTOTUNE_PARAM_MPIIO_CB_NODES" in notice


def test_an_app_that_reads_the_hint_keeps_it_and_romio321_reads_the_file(make_campaign: Any, tmp_path: Path) -> None:
    space = {"use": "local-openmpi", "fixed": {"ompi.io": "ompio"}}
    reads = _runtime(make_campaign, tmp_path, space=space, app={"reads": ["mpiio.cb_nodes"]})
    assert "mpiio.cb_nodes" in {p.name for p in reads.space.active}
    romio = _runtime(make_campaign, tmp_path, space={"use": "local-romio", "only": ["mpiio.cb_nodes"]},
                     launcher={"name": "local", "mpiexec_args": ["--mca", "io", "romio321"]})
    assert romio.io == "romio321" and [p.name for p in romio.space.active] == ["mpiio.cb_nodes"]
    config = {**romio.space.default_config(), "mpiio.cb_nodes": 2}
    assert romio.settings_for(config, False).info == {"cb_nodes": "2", "cb_config_list": "*:2"}


def test_an_open_mpi_trial_leaves_unset_what_the_default_leaves_unset(make_campaign: Any, tmp_path: Path) -> None:
    rt = _runtime(make_campaign, tmp_path, space={"use": "local-openmpi", "fixed": {"ompi.io": "ompio"}},
                  app={"reads": ["mpiio.cb_nodes"]})
    default = rt.space.default_config()
    s = rt.settings_for({**default, "ompi.fcoll": "individual"}, False)
    assert s.mca == {"io": "ompio", "fcoll": "individual"}  # no io_ompio_num_aggregators=1: OMPIO chooses
    assert s.info == {}
    req = rt.request(1, 0, {**default, "ompi.fcoll": "individual"}, False)
    env = param_env(req)
    assert env["AUTOTUNE_PARAM_OMPI_FCOLL"] == "individual" and "AUTOTUNE_PARAM_MPIIO_CB_NODES" not in env
    assert not any(k.startswith("AUTOTUNE_PARAM_") and k != "AUTOTUNE_PARAM_OMPI_IO"
                   for k in param_env(rt.request(0, 0, default, True)))


def test_a_commands_hint_moves_only_with_romio321(make_campaign: Any, tmp_path: Path) -> None:
    rt = _runtime(make_campaign, tmp_path, space="local-openmpi")
    default = rt.space.default_config()
    assert "mpiio.cb_nodes" in {p.name for p in rt.space.active}  # romio321 reads the file
    ompio = rt.space.violations({**default, "mpiio.cb_nodes": 2})
    assert ompio["romio_hints_need_romio"] > 0  # never run: OMPIO would never see it
    romio = rt.space.violations({**default, "ompi.io": "romio321", "mpiio.cb_nodes": 2})
    assert romio["romio_hints_need_romio"] <= 0


@pytest.mark.slow
def test_a_proposal_not_run_names_its_rule(make_campaign: Any, tmp_path: Path) -> None:
    import io

    from autotune.campaign import CampaignLoop, counts

    path = make_campaign(system=str(local_system_file(tmp_path, "openmpi")), space="local-openmpi",
                         objective={"repeats": 1}, budget={"trials": 4}, sampler={"name": "random", "seed": 1})
    out = io.StringIO()
    res = CampaignLoop(load_campaign(path), progress=False, out=out).run()
    n = counts(res.study)
    assert n.infeasible > 0 and sum(n.rules.values()) >= n.infeasible
    lines = [ln for ln in out.getvalue().splitlines() if ": not run: breaks the rule(s) " in ln]
    assert len(lines) == n.infeasible and all(any(r in ln for r in n.rules) for ln in lines)

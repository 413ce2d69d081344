"""``Runtime.request``: the one builder of the ``RunRequest`` a trial, the preflight, ``check`` and the dry run hand
to the launcher."""

from __future__ import annotations

import zlib
from typing import Any

from autotune.campaign import Runtime, load_campaign
from autotune.campaign.check._check import check_request
from autotune.campaign.run._preflight import first_requests


def test_a_trial_request_carries_the_trials_hints_directories_and_seed(make_campaign: Any) -> None:
    rt = Runtime.build(load_campaign(make_campaign()))
    c = rt.campaign
    config = {**rt.space.default_config(), "mpiio.romio_cb_write": "disable"}
    req = rt.request(3, 1, config, False)
    assert (req.campaign, req.trial, req.repetition, req.is_default) == (c.study, 3, 1, False)
    assert (req.run_dir, req.data_dir) == (rt.run_dir(3, 1), rt.data_dir(3, 1))
    assert req.settings == rt.settings_for(config, False) and req.settings.info
    assert req.seed == zlib.crc32(f"{c.study}/3/1".encode()) and req.timeout == c.budget.run_timeout
    assert req.previous_run_dir is None and req.app is c.app and req.fs is c.fs
    assert rt.request(3, 1, config, False, seeded=False).seed == 0


def test_preflight_and_check_build_theirs_with_it(make_campaign: Any) -> None:
    rt = Runtime.build(load_campaign(make_campaign()))
    default = rt.space.default_config()
    assert first_requests(rt) == [rt.request(0, r, default, True) for r in range(rt.campaign.objective.repeats)]
    req = check_request(rt, default, True)
    assert req.run_dir == rt.campaign.workdir / "check" / "rep-0" and req.seed == 0
    assert req.data_dir == rt.campaign.data_root / f"{rt.campaign.study}-check"

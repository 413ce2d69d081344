"""Cray MPI-IO statistics (MPICH_MPIIO_STATS=1 on rank 0's stderr) are parsed for every launcher's runs."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path
from typing import Any

from autotune.campaign import CampaignLoop, load_campaign, ran_trials

BOX = textwrap.dedent("""\
    +-----+
    | MPIIO write access patterns for out.dat
    | aggregators        = 3
    | stripe sized writes = 11
    +-----+
""")


def test_local_runs_keep_their_mpiio_stats(make_campaign: Any, tmp_path: Path) -> None:
    app = tmp_path / "cray_app.py"
    app.write_text(f"import json, sys\nsys.stderr.write({BOX!r})\n"
                   "print(json.dumps({'metrics': {'bandwidth_mib_s': 10.0}}))\n")
    path = make_campaign(app={"command": ["python3", str(app)]}, budget={"trials": 1}, objective={"repeats": 1})
    res = CampaignLoop(load_campaign(path), progress=False, out=open(os.devnull, "w")).run()
    [trial] = ran_trials(res.study)
    stats = trial.user_attrs["run_info"][0]["mpiio_stats"]
    assert stats["summary"] == {"aggregators": 3, "stripe_sized_writes": 11}

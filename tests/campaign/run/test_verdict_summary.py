"""The summary's warning names each setting, its verdict and the evidence (not "see `autotune status`")."""

from __future__ import annotations

import io
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from autotune.campaign import CampaignLoop, best_trial, load_campaign, summary_text

# prints what ROMIO prints at an open (ROMIO_PRINT_HINTS=1) when cb_config_list=*:1 caps the aggregators at one,
# and a bandwidth that grows with the requested cb_nodes (so a tuned trial wins)
APP = textwrap.dedent('''
    import json, os
    nodes = int(os.environ.get("AUTOTUNE_PARAM_MPIIO_CB_NODES", "1"))
    if os.environ.get("ROMIO_PRINT_HINTS"):
        for key, value in (("cb_nodes", "1"), ("cb_config_list", "*:1"), ("romio_aggregator_list", "0")):
            print(f"key = {key:<25} value = {value:<10}")
    print(json.dumps({"autotune_record": 1, "metrics": {"bandwidth_mib_s": 100.0 * nodes, "seconds": 1.0}}))
''')


@pytest.mark.slow
def test_the_summary_warning_names_setting_verdict_and_evidence(make_campaign: Any, tmp_path: Path) -> None:
    app = tmp_path / "capped.py"
    app.write_text(APP)
    path = make_campaign(app={"command": [sys.executable, str(app)]}, objective={"repeats": 1},
                         budget={"trials": 3}, space={"use": "local-romio", "only": ["mpiio.cb_nodes"]},
                         sampler={"name": "grid"})
    out = io.StringIO()
    res = CampaignLoop(load_campaign(path), progress=False, out=out).run()
    best = best_trial(res.study)
    assert best is not None, out.getvalue()
    nodes = res.runtime.config_of(best)["mpiio.cb_nodes"]
    assert nodes > 1
    text = summary_text(res.runtime, res.study)
    assert f"WARNING: settings of trial {best.number} that did not reach the program or did not act:" in text
    assert f"    cb_nodes={nodes}: not in effect (observed 1): ROMIO's own report of its hints" in text
    assert "cb_config_list=*:1 allows one aggregator per node" in text
    assert "see `autotune status`" not in text
    assert f"cb_nodes={nodes} not in effect (ROMIO's own report" in out.getvalue()  # the progress line too

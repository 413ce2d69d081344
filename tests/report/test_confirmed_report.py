"""The report leads with what the confirmation showed, says what it did not, and plots only what was searched."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from autotune.campaign import CampaignLoop, Runtime
from autotune.report import build_report
from autotune.testing import model_campaign


def _run(tmp: Path, **over: object) -> tuple[Runtime, object]:
    res = CampaignLoop(model_campaign(tmp, trials=6, **over), progress=False, out=io.StringIO()).run()
    return res.runtime, res.study


@pytest.mark.slow
def test_one_confirmed_campaign_leads_with_its_confirmed_gains(tmp_path: Path) -> None:
    rt, study = _run(tmp_path / "a")  # theta Lustre, stripe count and size searched, confirmed at the end
    rep = build_report([(rt, study)], tmp_path / "report")  # type: ignore[list-item]
    data = json.loads((rep.directory / "report.json").read_text())
    [t] = data["targets"]
    assert t["confirmed"] and t["claim"].startswith("recommendation: ")
    assert data["recommendation"].startswith("theta/projects: confirmed recommendation")
    assert "run the other" not in data["recommendation"] and "side by side" not in data["recommendation"]
    html = rep.html.read_text()
    assert "Confirmation:" in html and "interleaved rounds" in html and "best rule of thumb" in html
    assert "confirmed gain over default (95% interval)" in html
    assert "lustre.stripe_count" in t["searched"]
    assert (rep.directory / "figures" / "scaling.svg").exists()  # the stripe count was searched


@pytest.mark.slow
def test_unconfirmed_campaigns_say_so_and_no_plot_of_an_unsearched_resource(tmp_path: Path) -> None:
    over = {"objective": {"metric": "write_bandwidth_mib_s", "repeats": 2, "confirm": 0},
            "space": {"use": "lustre-cray", "only": ["lustre.stripe_size"]}}
    a = _run(tmp_path / "a", **over, name="a")
    b = _run(tmp_path / "b", **over, name="b")
    rep = build_report([a, b], tmp_path / "report")  # type: ignore[list-item]
    data = json.loads((rep.directory / "report.json").read_text())
    assert not data["confirmed"] and all(not t["confirmed"] for t in data["targets"])
    assert "unconfirmed: the search's best of N" in data["recommendation"]
    assert "confirm with `autotune tune" in data["recommendation"]
    assert "not measured side by side" in data["recommendation"]
    assert not (rep.directory / "figures" / "scaling.svg").exists()  # the stripe count was not searched
    assert "not confirmed" in rep.html.read_text()

"""The evaluation's committed results round-trip through JSON + Parquet, and the committed ones render."""

from __future__ import annotations

from pathlib import Path

from experiments.evaluation.evalkit import store
from experiments.evaluation.evalkit.surface_report import markdown

RESULTS = Path(__file__).resolve().parents[2] / "experiments" / "evaluation" / "results"


def test_records_round_trip_keeping_nulls_apart_from_missing_fields(tmp_path: Path) -> None:
    data = {"meta": {"command": "x", "trials": 20}, "truths": [{"truth": "t", "optimum": 1.5}],
            "records": [{"truth": "t", "seed": 0, "trials_to_95": None, "regret": {"10": 0.1, "20": 0.0}},
                        {"truth": "t", "seed": 1, "trials_to_95": 4, "gain": {"proven": True}, "config": {"a": "b"}}]}
    out = tmp_path / "r.json"
    store.save(out, data)
    assert store.records_path(out).exists()
    back = store.load(out)
    assert back == data
    assert "gain" not in back["records"][0] and back["records"][0]["trials_to_95"] is None


def test_the_committed_results_render_to_the_committed_tables() -> None:
    for name in ("surface_eval", "model_in_loop", "surface_eval_heldout"):
        data = store.load(RESULTS / f"{name}.json")
        assert data["records"], name
        assert markdown(data) == (RESULTS / f"{name}.md").read_text(), name

"""The worth-running harness: a recorded public sweep replayed as a user's campaign, 1 seed, scored as exported."""

from __future__ import annotations

import json
from pathlib import Path

from experiments.evaluation import worth_running

BLUE_WATERS = "bluewaters-ioda-stripe-count"


def test_each_campaign_file_replays_its_sweep_with_a_user_s_metric_name() -> None:
    paths = worth_running.truths(None)
    assert len([p for p in paths if not p.stem.startswith("local-")]) >= 3  # at least three public systems
    for path in paths:
        tr = worth_running.Truth.load(path)
        assert tr.data["objective"]["metric"] not in ("write_bandwidth_mib_s", "seconds")  # the user's own name
        assert tr.data["launcher"]["name"] == "replay" and tr.best() > 0
        assert "source" in tr.recording.header or path.stem.startswith("local-")


def test_one_sweep_one_seed_scores_what_export_hands_back_and_counts_the_runs(tmp_path: Path) -> None:
    out = tmp_path / "worth"
    worth_running.main(["--seeds", "1", "--trials", "5", "--methods", "autotune", "--truths", BLUE_WATERS, "--jobs", "1",
                        "--out", str(out)])
    data = json.loads(out.with_suffix(".json").read_text())
    by = {r["method"]: r for r in worth_running.last_records}
    assert set(by) == {"default", "rule:stripe-per-node = all-osts", "autotune"}
    # 1 stripe, collective: 332 MiB/s of the best 5312 (32 stripes, collective), as the sweep recorded
    assert abs(by["default"]["score"] - 331.879 / 5311.97) < 1e-9
    assert by["rule:stripe-per-node = all-osts"]["config"] == "lustre.stripe_count=32;mpiio.romio_cb_write=enable"
    auto = by["autotune"]
    assert auto["score"] is not None and 0 < auto["score"] <= 1
    assert auto["runs"] >= 5 and auto["confirm_runs"] >= 0
    group = data["groups"][f"{BLUE_WATERS}/5/autotune"]
    assert group["runs"] == [auto["runs"]] and sum(group["recommended"].values()) == 1
    assert f"{BLUE_WATERS}/5" in data["verdicts"] and "| autotune |" in out.with_suffix(".md").read_text()

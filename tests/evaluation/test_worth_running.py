"""The worth-running harness: a recorded public sweep replayed as a user's campaign, 1 seed, scored as exported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from experiments.evaluation import worth_running as wr

BLUE_WATERS = "bluewaters-ioda-stripe-count"


def test_each_campaign_file_replays_its_sweep_with_a_user_s_metric_name() -> None:
    paths = wr.truths(None)
    public = [p for p in paths if not p.stem.startswith("local-")]
    systems = {str(wr.Truth.load(p).data["system"]) for p in public}
    assert len(systems) >= 4, systems  # Ranger, Blue Waters, Shaheen II, Cirrus: at least three beside Shaheen
    for path in paths:
        tr = wr.Truth.load(path)
        assert tr.data["objective"]["metric"] not in ("write_bandwidth_mib_s", "seconds")  # the user's own name
        assert tr.data["launcher"]["name"] == "replay" and tr.best() > 0
        assert "source" in tr.recording.header or path.stem.startswith("local-")


def test_one_sweep_one_seed_scores_what_export_hands_back_and_counts_the_runs(tmp_path: Path) -> None:
    out = tmp_path / "worth"
    wr.main(["--seeds", "1", "--trials", "5", "--methods", "autotune", "--truths", BLUE_WATERS, "--jobs", "1",
             "--out", str(out)])
    data = json.loads(out.with_suffix(".json").read_text())
    by = {r["method"]: r for r in wr.last_records}
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


def test_truths_are_chosen_by_shell_pattern_and_an_unmatched_pattern_is_refused() -> None:
    assert [p.stem for p in wr.truths(["cirrus-*"])] == [f"cirrus-e1000-ior-shared-{n}n" for n in (1, 2, 3, 4)]
    assert [p.stem for p in wr.truths([BLUE_WATERS])] == [BLUE_WATERS]
    with pytest.raises(ValueError, match="'cirrus-9n' matches no truth"):
        wr.truths(["cirrus-9n"])


def test_cirrus_truths_replay_the_recorded_stripe_counts_with_the_rules_of_thumb() -> None:
    for n, counts in ((1, [1, 4, 8, 12, 16]), (2, [1, 4, 8, 12, 16]), (3, [1, 4, 8, 12, 16]), (4, [1, 4, 8])):
        path = wr.CAMPAIGNS / f"cirrus-e1000-ior-shared-{n}n.yaml"
        tr = wr.Truth.load(path)
        assert sorted(int(v) for v in tr.recording.parameters["lustre.stripe_count"]) == counts
        assert tr.data["app"]["nodes"] == n and tr.data["app"]["ranks"] == 36 * n
        assert tr.defaults == {"lustre.stripe_count": "1"}
    # 4 nodes: stripe-per-node gives 4 stripes, all-osts the widest recorded (8); medians as recorded (MiB/s)
    assert wr.baselines(wr.CAMPAIGNS / "cirrus-e1000-ior-shared-4n.yaml") == [
        "default", "rule:stripe-per-node", "rule:all-osts"]
    four = wr.Truth.load(wr.CAMPAIGNS / "cirrus-e1000-ior-shared-4n.yaml")
    assert four.medians == {"lustre.stripe_count=1": 3125.66, "lustre.stripe_count=4": 5362.0,
                            "lustre.stripe_count=8": 5416.0}
    assert abs(four.score({"lustre.stripe_count": 4}) - 5362.0 / 5416.0) < 1e-12

"""The worth-running harness: a recorded public sweep replayed as a user's campaign, 1 seed, scored as exported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from experiments.evaluation import worth_running

BLUE_WATERS = "bluewaters-ioda-stripe-count"


def test_each_campaign_file_replays_its_sweep_with_a_user_s_metric_name() -> None:
    paths = worth_running.truths(None)
    public = [p for p in paths if not p.stem.startswith("local-")]
    systems = {str(worth_running.Truth.load(p).data["system"]) for p in public}
    assert len(systems) >= 5, systems  # Ranger, Blue Waters, Shaheen II, Cirrus, ARCHER: four beside Shaheen
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


def test_truths_are_chosen_by_shell_pattern_and_an_unmatched_pattern_is_refused() -> None:
    assert [p.stem for p in worth_running.truths(["cirrus-e1000-ior-shared-?n"])] == [
        f"cirrus-e1000-ior-shared-{n}n" for n in (1, 2, 3, 4)]
    assert len(worth_running.truths(["cirrus-*", BLUE_WATERS])) == 8  # 4 write and 3 read sweeps, Blue Waters
    assert [p.stem for p in worth_running.truths([BLUE_WATERS])] == [BLUE_WATERS]
    with pytest.raises(ValueError, match="'cirrus-9n' matches no truth"):
        worth_running.truths(["cirrus-9n"])


def test_cirrus_truths_replay_the_recorded_stripe_counts_with_the_rules_of_thumb() -> None:
    every = [1, 4, 8, 12, 16]
    for stem, n, counts, phase in (("", 1, every, "write"), ("", 2, every, "write"), ("", 3, every, "write"),
                                   ("", 4, [1, 4, 8], "write"), ("read-", 2, every, "read"),
                                   ("read-", 3, every, "read"), ("read-", 4, [1, 4, 8], "read")):
        tr = worth_running.Truth.load(worth_running.CAMPAIGNS / f"cirrus-e1000-ior-shared-{stem}{n}n.yaml")
        assert sorted(int(v) for v in tr.recording.parameters["lustre.stripe_count"]) == counts
        assert tr.data["app"]["nodes"] == n and tr.data["app"]["ranks"] == 36 * n
        assert tr.defaults == {"lustre.stripe_count": "1"} and tr.phases == (phase,)
        assert tr.recording.metric == f"{phase}_bandwidth_mib_s"
        assert all(len(runs) >= 5 for runs in tr.recording.runs.values())
    # 4 nodes: stripe-per-node gives 4 stripes, all-osts the widest recorded (8); medians as recorded (MiB/s)
    assert worth_running.baselines(worth_running.CAMPAIGNS / "cirrus-e1000-ior-shared-4n.yaml") == [
        "default", "rule:stripe-per-node", "rule:all-osts"]
    four = worth_running.Truth.load(worth_running.CAMPAIGNS / "cirrus-e1000-ior-shared-4n.yaml")
    assert four.medians == {"lustre.stripe_count=1": 3125.66, "lustre.stripe_count=4": 5362.0,
                            "lustre.stripe_count=8": 5416.0}
    assert abs(four.score({"lustre.stripe_count": 4}) - 5362.0 / 5416.0) < 1e-12
    # reading back at 4 nodes, 4 stripes are best (7920 MiB/s median) and all OSTs' stand-in (8) is not
    read = worth_running.Truth.load(worth_running.CAMPAIGNS / "cirrus-e1000-ior-shared-read-4n.yaml")
    assert read.best() == 7920.0 and read.score({"lustre.stripe_count": 8}) == 7198.0 / 7920.0


def test_archer_truths_replay_the_page_s_table_and_the_rules_take_the_listed_counts() -> None:
    ssf = worth_running.Truth.load(worth_running.CAMPAIGNS / "archer-fs3-ssf-mpiio-384p.yaml")
    assert ssf.recording.parameters == {"lustre.stripe_count": ["4", "48"],
                                        "lustre.stripe_size": ["1048576", "8388608"]}
    # 384 processes: 48 stripes of 8 MiB wrote 7663 MiB/s, the default (4 x 1 MiB) 881
    assert ssf.best() == 7663.0 and ssf.score(ssf.defaults) == 881.0 / 7663.0
    # 16 nodes: stripe-per-node's 16 takes the nearest listed count (48), the same configuration as all-osts
    assert worth_running.baselines(worth_running.CAMPAIGNS / "archer-fs3-ssf-mpiio-384p.yaml") == [
        "default", "rule:stripe-per-node = all-osts"]
    fpp = worth_running.Truth.load(worth_running.CAMPAIGNS / "archer-fs3-fpp-fortran-24p.yaml")
    assert fpp.defaults == {"lustre.stripe_count": "4"} and fpp.best() == 6334.0  # one node: the default is best
    assert worth_running.baselines(worth_running.CAMPAIGNS / "archer-fs3-fpp-fortran-24p.yaml") == [
        "default", "rule:stripe-per-node", "rule:all-osts"]

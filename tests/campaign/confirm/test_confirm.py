"""Recommend only what was proven: interleaved confirmation, margin with an interval, ablation of settings."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from autotune.campaign import CampaignLoop, load_campaign, parse_campaign, summary_text
from autotune.campaign.confirm._recommend import pooled_history, top_physical
from autotune.campaign.confirm._sequential import confirm, weights
from autotune.errors import ConfigError
from autotune.hints import inert
from autotune.space import Config

DEFAULT = {"mpiio.romio_cb_write": "automatic", "mpiio.cb_nodes": 1, "mpiio.romio_ds_write": "automatic"}


def surface(config: Config) -> float:
    """Only cb_nodes matters (x2 at 4); data sieving does nothing."""
    return 100.0 * (2.0 if config["mpiio.cb_nodes"] == 4 else 1.0)


class Bench:
    """A noisy measurement (2% jitter) that records the order of the runs."""

    def __init__(self, truth: Any = surface, jitter: float = 0.02) -> None:
        self.truth, self.jitter, self.calls = truth, jitter, []  # type: ignore[var-annotated]
        self.rng = np.random.default_rng(0)

    def __call__(self, config: Config, is_default: bool, number: int) -> float:
        self.calls.append((dict(config), number))
        return self.truth(config) * (1 + self.jitter * self.rng.standard_normal())


def test_the_rounds_are_interleaved_and_rotated() -> None:
    a = {**DEFAULT, "mpiio.cb_nodes": 4}
    b = {**DEFAULT, "mpiio.cb_nodes": 2}
    bench = Bench()
    confirm(DEFAULT, [(3, a), (5, b)], 3, bench, maximize=True)
    first9 = [c["mpiio.cb_nodes"] for c, _ in bench.calls[:9]]
    assert first9 == [1, 4, 2, 4, 2, 1, 2, 1, 4]  # D A B, A B D, B D A
    assert len({n for _, n in bench.calls}) == len(bench.calls)  # every run has its own directory


def test_the_winner_has_a_margin_with_an_interval_and_only_settings_that_matter_are_kept() -> None:
    winner = {**DEFAULT, "mpiio.cb_nodes": 4, "mpiio.romio_ds_write": "enable"}
    conf = confirm(DEFAULT, [(7, winner)], 3, Bench(jitter=0.005), maximize=True)  # one look: the full 5%
    assert conf.winner == "trial 7" and conf.proven
    assert 0.8 < conf.low < conf.margin < conf.high < 1.2  # about +100%
    assert conf.recommended == {"mpiio.cb_nodes": 4}
    assert "mpiio.romio_ds_write" in conf.dropped and "within the jitter" in conf.dropped["mpiio.romio_ds_write"]
    assert conf.ablation["mpiio.cb_nodes"]["low"] > 0
    # at 2% jitter three rounds cannot show the idle setting within 5%: it is kept (dropping it might cost more)
    kept = confirm(DEFAULT, [(7, winner)], 3, Bench(), maximize=True)
    assert kept.recommended == {"mpiio.cb_nodes": 4, "mpiio.romio_ds_write": "enable"}
    assert kept.ablation["mpiio.romio_ds_write"]["high"] > 0.05


def test_settings_that_cannot_act_are_dropped_without_measuring() -> None:
    winner = {**DEFAULT, "mpiio.romio_cb_write": "disable", "mpiio.cb_nodes": 4}
    conf = confirm(DEFAULT, [(2, winner)], 3, Bench(lambda c: 300.0 if c["mpiio.romio_cb_write"] == "disable" else 100.0),
                   maximize=True)
    assert conf.recommended == {"mpiio.romio_cb_write": "disable"}
    assert "aggregators do not exist" in conf.dropped["mpiio.cb_nodes"]
    assert not conf.ablation


def test_a_gain_within_the_jitter_recommends_the_default() -> None:
    lucky = {**DEFAULT, "mpiio.romio_ds_write": "disable"}  # no real effect, 20% jitter
    conf = confirm(DEFAULT, [(4, lucky)], 3, Bench(jitter=0.2), maximize=True)
    assert not conf.proven and conf.recommended == {}
    assert conf.low <= 0 <= conf.high or conf.winner == "default"
    assert any("keep the system's defaults" in ln for ln in conf.lines("bw"))


def test_a_clear_gain_stops_early_and_a_null_runs_to_the_budget_and_says_what_it_could_show() -> None:
    a = {**DEFAULT, "mpiio.cb_nodes": 4}
    clear = confirm(DEFAULT, [(3, a)], 30, Bench(), maximize=True)
    assert clear.decision == "recommend" and clear.rounds <= 6 and clear.max_rounds == 30  # p < 0.001 early
    lucky = {**DEFAULT, "mpiio.romio_ds_write": "disable"}
    null = confirm(DEFAULT, [(4, lucky)], 12, Bench(jitter=0.2), maximize=True)
    assert null.rounds == 12 and null.decision == "undecided" and not null.proven and null.recommended == {}
    assert null.needed_rounds is not None and null.needed_rounds > 12
    assert "no difference larger than" in null.verdict() and f"about {null.needed_rounds} rounds" in null.verdict()


def test_a_candidate_shown_not_to_matter_stops_early_and_keeps_the_defaults() -> None:
    worse = {**DEFAULT, "mpiio.cb_nodes": 2}
    conf = confirm(DEFAULT, [(5, worse)], 30, Bench(lambda c: 100.0 if c["mpiio.cb_nodes"] == 1 else 70.0),
                   maximize=True)
    assert conf.decision == "worse" and conf.rounds < 30 and conf.recommended == {}
    assert conf.high < 0 and "keep the system's defaults" in conf.verdict()


def test_the_time_budget_ends_the_rounds_with_a_final_look() -> None:
    now = [0.0]

    def clock() -> float:
        now[0] += 1.0
        return now[0]
    lucky = {**DEFAULT, "mpiio.romio_ds_write": "disable"}
    conf = confirm(DEFAULT, [(4, lucky)], 30, Bench(jitter=0.2), maximize=True, seconds=4.5, clock=clock)
    assert 4 <= conf.rounds < 30 and conf.decision in ("undecided", "below")
    assert conf.low > -1 and conf.high < float("inf")  # the rest of the error spent at the last look


def test_history_pools_the_twins_runs_without_the_lucky_trial_that_chose_the_candidate() -> None:
    dis = {**DEFAULT, "mpiio.romio_cb_write": "disable"}
    runs = [(-1, DEFAULT, [100.0, 101.0]), (1, {**dis, "mpiio.cb_nodes": 4}, [140.0, 150.0]),
            (2, {**dis, "mpiio.cb_nodes": 2}, [120.0, None]), (3, dict(DEFAULT), [99.0]),
            (4, {**DEFAULT, "mpiio.cb_nodes": 4}, [90.0])]
    ranked = [(1, runs[1][1]), (2, runs[2][1]), (3, runs[3][1]), (4, runs[4][1])]
    top = top_physical(ranked, DEFAULT, ("write",))
    assert [n for n, _ in top] == [1, 4]  # trial 2 is a twin of trial 1 (cb_nodes cannot act); 3 is the default
    hist = pooled_history(runs, DEFAULT, top, ("write",))
    assert hist[1] == [[120.0]] and hist[-1] == [[100.0, 101.0], [99.0]] and hist[4] == []


def test_the_history_is_evidence_the_rounds_alone_lack() -> None:
    a = {**DEFAULT, "mpiio.cb_nodes": 4}
    gain = lambda c: 110.0 if c["mpiio.cb_nodes"] == 4 else 100.0  # noqa: E731
    alone = confirm(DEFAULT, [(3, a)], 6, Bench(gain, jitter=0.1), maximize=True)
    rng = np.random.default_rng(1)
    hist = {3: [list(110 * np.exp(rng.normal(0, 0.1, 3))) for _ in range(8)],
            -1: [list(100 * np.exp(rng.normal(0, 0.1, 3))) for _ in range(8)]}
    pooled = confirm(DEFAULT, [(3, a)], 6, Bench(gain, jitter=0.1), maximize=True, history=hist)
    assert pooled.proven and alone.proven and pooled.rounds < alone.rounds  # shown sooner with the history
    assert any("24 earlier runs of the same physical configuration pooled" in ln for ln in pooled.lines("bw"))


@pytest.mark.parametrize(("value", "message"), [
    ({"rounds": 1}, "number of rounds >= 2"), ({"matters": 2}, "a fraction in [0, 1)"),
    ({"rounds": 10, "looks": 3}, "looks"), ({"time": "soon"}, "objective.confirm.time")])
def test_the_confirmation_budget_is_checked_at_load(value: object, message: str, tmp_path: Path) -> None:
    data = {"name": "c", "app": {"kernel": "ior", "ranks": 2}, "system": "local", "space": {"use": "local-romio"},
            "objective": {"metric": "write_bandwidth_mib_s", "confirm": value}, "workdir": str(tmp_path)}
    with pytest.raises(ConfigError, match=re.escape(message)):
        parse_campaign(data, tmp_path)


def test_the_confirmation_budget_in_full() -> None:
    data = {"name": "c", "app": {"kernel": "ior", "ranks": 2}, "system": "local", "workdir": "/tmp/c",
            "space": {"use": "local-romio"},
            "objective": {"metric": "write_bandwidth_mib_s", "confirm": {"rounds": 12, "matters": 0.1, "time": "10min"}}}
    o = parse_campaign(data, Path("/tmp")).objective
    assert (o.confirm, o.confirm_matters, o.confirm_seconds) == (12, 0.1, 600.0)


@pytest.mark.slow
def test_a_real_local_campaign_ends_with_a_confirmation_and_exports_only_what_matters(tmp_path: Path) -> None:
    data = {
        "name": "confirmed",
        "app": {"kernel": "ior", "ranks": 2, "args": {"block_size": "2MiB", "transfer_size": "64KiB",
                                                       "layout": "strided", "phases": ["write"]}},
        "system": "local", "space": {"use": "local-romio", "only": ["mpiio.romio_cb_write", "mpiio.cb_nodes",
                                                                   "mpiio.romio_ds_write"]},
        "objective": {"metric": "write_bandwidth_mib_s", "repeats": 1, "confirm": {"rounds": 3, "runs": 40}},
        "budget": {"trials": 5, "run_timeout": "60s"}, "sampler": {"name": "random", "seed": 2},
        "launcher": {"name": "local", "python": sys.executable},
        "workdir": str(tmp_path / "work"), "tracking": {"enabled": False},
    }
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(data))
    out = tmp_path / "out.txt"
    with out.open("w") as f:
        res = CampaignLoop(load_campaign(path), progress=False, out=f).run()
    assert "confirmation" in res.study.user_attrs, f"stopped by {res.stopped_by}:\n{out.read_text()[-4000:]}"
    conf = res.study.user_attrs["confirmation"]
    assert conf["rounds"] == 3 and conf["candidates"][0]["label"] == "default"
    assert all(len(c["values"]) == 3 for c in conf["candidates"])
    assert conf["low"] <= conf["margin"] <= conf["high"]
    assert "the default, at most 3 interleaved rounds and 40 runs" in out.read_text()
    text = summary_text(res.runtime, res.study)  # what `autotune tune` prints at the end
    assert "confirmation: 3 interleaved rounds" in text and "95% interval" in text
    assert "recommended settings" in text
    rec = res.summary["recommended_config"]
    default = res.runtime.space.default_config()
    assert all(default.get(k) != v for k, v in rec.items())  # only settings that differ from the default
    assert not inert(rec)  # and none that cannot act
    assert set(rec) <= set(conf["recommended"])
    # the decision is one-sided (its bound at the winner's share of the error), the reported interval two-sided 95%:
    # a change shown by the bound may have a low end below zero, so the decision, not ``low``, says what is kept
    if conf["decision"] == "recommend":
        assert conf["bound"] is not None and conf["bound"] > 0
    elif not conf.get("recommends_rule"):
        assert rec == {} and res.summary["recommended_is_default"]
    data_dir = tmp_path / "work" / "data"
    assert not data_dir.exists() or not os.listdir(data_dir)  # the confirmation's runs leave no data either


def test_the_search_s_best_candidate_gets_most_of_the_error_and_the_decision_is_one_sided() -> None:
    assert weights(3) == pytest.approx([0.8, 0.1, 0.1]) and weights(1) == [1.0]
    assert weights(2) == pytest.approx([0.8 / 0.9, 0.1 / 0.9]) and sum(weights(5)) == pytest.approx(1.0)
    a = {**DEFAULT, "mpiio.cb_nodes": 4}
    conf = confirm(DEFAULT, [(3, a)], 3, Bench(), maximize=True)
    assert conf.decision == "recommend" and conf.bound is not None and conf.low < conf.bound < conf.margin
    assert "one-sided 95%" in conf.verdict() and f"{conf.bound:+.1%}" in conf.verdict()


def test_settings_that_only_act_together_are_kept_together() -> None:
    """The gain needs both settings (+30%); either alone does nothing or harms (-15%). Measured alone, each
    reduced configuration is too noisy to show a cost, which must not let the ablation drop a setting the gain
    needs: a setting goes only when its cost is shown to be below the confirmed gain."""
    winner = {**DEFAULT, "mpiio.cb_nodes": 4, "mpiio.romio_ds_write": "disable"}

    def truth(c: Config) -> float:
        both = c["mpiio.cb_nodes"] == 4 and c["mpiio.romio_ds_write"] == "disable"
        return 130.0 if both else 85.0 if c["mpiio.romio_ds_write"] == "disable" else 100.0

    for seed in range(4):
        bench = Bench(truth)
        bench.rng = np.random.default_rng(seed)
        base = bench.__call__

        def noisy(config: Config, is_default: bool, number: int, base: Any = base, rng: Any = bench.rng) -> float:
            v = base(config, is_default, number)  # the half-ablated configurations: 40% jitter
            return v * float(np.exp(rng.normal(0, 0.4))) if config not in (winner, DEFAULT) else v

        conf = confirm(DEFAULT, [(7, winner)], 12, noisy, maximize=True)
        assert conf.proven and conf.recommended == {"mpiio.cb_nodes": 4, "mpiio.romio_ds_write": "disable"}
        assert set(conf.ablation) == {"mpiio.cb_nodes", "mpiio.romio_ds_write"} and not conf.dropped


def test_a_winner_shown_better_than_the_best_rule_of_thumb_is_recommended_with_both_gains() -> None:
    """cb_nodes=4 doubles the bandwidth; the rule (cb_nodes=2) gives +20%: the winner beats both, each shown."""
    def truth(c: Config) -> float:
        return 100.0 * {4: 2.0, 2: 1.2}.get(c["mpiio.cb_nodes"], 1.0)

    winner, rule = {**DEFAULT, "mpiio.cb_nodes": 4}, {**DEFAULT, "mpiio.cb_nodes": 2}
    bench = Bench(truth)
    conf = confirm(DEFAULT, [(7, winner)], 3, bench, maximize=True, rule=(2, rule, "two-aggregators"))
    assert {c["mpiio.cb_nodes"] for c, _ in bench.calls[:3]} == {1, 2, 4}  # the rule runs in the same rounds
    assert conf.proven and not conf.recommends_rule and conf.recommended == {"mpiio.cb_nodes": 4}
    assert conf.rule is not None and conf.over_rule is not None
    assert 0.1 < conf.rule["low"] < conf.rule["margin"] < conf.rule["high"] < 0.3  # the rule: about +20%
    assert 0.5 < conf.over_rule["low"] < conf.over_rule["margin"] < conf.over_rule["high"] < 0.9  # 2.0/1.2: +67%
    claim = conf.claim()
    assert "over the default (95% interval" in claim and "over the best rule of thumb two-aggregators" in claim


def test_a_winner_not_shown_better_than_the_rule_gives_way_to_the_rule_and_says_so() -> None:
    """The search's winner and the rule both double the bandwidth: the rule is what the user would do anyway."""
    def truth(c: Config) -> float:
        return 200.0 if c["mpiio.cb_nodes"] == 4 or c["mpiio.romio_cb_write"] == "enable" else 100.0

    winner = {**DEFAULT, "mpiio.cb_nodes": 4, "mpiio.romio_ds_write": "enable"}
    rule = {**DEFAULT, "mpiio.romio_cb_write": "enable"}
    bench = Bench(truth)
    conf = confirm(DEFAULT, [(7, winner)], 6, bench, maximize=True, rule=(1, rule, "cb-on"))
    assert conf.proven and conf.recommends_rule and conf.recommended == {"mpiio.romio_cb_write": "enable"}
    assert not conf.ablation  # the rule is recommended as its source gives it: nothing of the winner is ablated
    assert "not shown better than the rule of thumb cb-on" in conf.verdict()
    assert "recommendation: the rule of thumb cb-on" in conf.claim()
    assert "winner trial 7 over the rule of thumb cb-on" in "\n".join(conf.lines("bw"))


def test_a_rule_that_is_a_candidate_is_measured_once_and_the_winner_is_the_rule() -> None:
    winner = {**DEFAULT, "mpiio.cb_nodes": 4}
    bench = Bench()
    conf = confirm(DEFAULT, [(3, winner)], 3, bench, maximize=True, rule=(3, winner, "the-rule"))
    assert len(bench.calls) >= 6 and len({str(c) for c, _ in bench.calls[:6]}) == 2  # two entries, not three
    assert conf.proven and conf.over_rule is None and "it is the rule of thumb the-rule" in conf.claim()


def test_the_summary_prints_the_ablation_and_says_what_it_showed_of_each_setting() -> None:
    from autotune.campaign.confirm._record import Confirmation
    from autotune.campaign.run._report import winner_of

    conf = Confirmation(
        rounds=9, candidates=[{"label": "default", "trial": -1, "config": DEFAULT, "values": [1.0]},
                              {"label": "trial 11", "trial": 11, "config": {"a": 1}, "values": [2.0]},
                              {"label": "trial 12", "trial": 12, "config": {"b": 2}, "values": [2.1]}],
        winner="trial 12", margin=0.6, low=0.1, high=1.2, recommended={"mpiio.cb_nodes": 4, "mpiio.romio_ds_write": "disable"},
        ablation={"mpiio.cb_nodes": {"values": [1.0] * 9, "cost": 0.5, "low": 0.3, "high": 0.7},
                  "mpiio.romio_ds_write": {"values": [1.0] * 9, "cost": 0.003, "low": -0.47, "high": 0.9}},
        decision="recommend", bound=0.12)
    text = "\n".join(conf.lines("bw"))
    assert "ablation of the winner's settings (each reset to its default, 9 rounds" in text
    assert "mpiio.cb_nodes: kept, shown to matter: dropping it cost +50.0% (95% interval +30.0% to +70.0%)" in text
    assert ("mpiio.romio_ds_write: kept, not shown to matter: dropping it cost +0.3% (95% interval -47.0% to +90.0%)"
            in text)
    assert conf.shown_to_matter("mpiio.cb_nodes") and not conf.shown_to_matter("mpiio.romio_ds_write")
    assert winner_of({**conf.__dict__}) == (12, {"b": 2})  # the configuration shown is the winner's, not trial 11's


def test_settings_kept_without_an_ablation_are_not_said_to_matter_one_by_one() -> None:
    from autotune.campaign.confirm._record import Confirmation

    def shown(recommended: dict[str, object]) -> Confirmation:
        return Confirmation(
            rounds=7, candidates=[{"label": "default", "trial": -1, "config": DEFAULT, "values": [1.0]},
                                  {"label": "trial 4", "trial": 4, "config": recommended, "values": [2.0]}],
            winner="trial 4", margin=0.7, low=0.2, high=1.5, recommended=dict(recommended), decision="recommend",
            bound=0.3, note="no ablation: 2 run(s) left of the confirmation's budget")

    several = shown({"mpiio.romio_cb_write": "disable", "mpiio.romio_ds_write": "enable"})
    for name in several.recommended:  # no ablation ran: neither carries the gain on its own
        assert not several.shown_to_matter(name)
        assert several.setting_note(name) == "kept, not ablated: the confirmed gain is the winner's as a whole"
    one = shown({"mpiio.romio_cb_write": "disable"})  # the only setting that can act carries all of the gain
    assert one.shown_to_matter("mpiio.romio_cb_write") and "only changed setting" in one.setting_note(
        "mpiio.romio_cb_write")
    one.recommends_rule = True  # a rule's settings come from its source, not from this confirmation
    assert not one.shown_to_matter("mpiio.romio_cb_write") and "rule of thumb" in one.setting_note(
        "mpiio.romio_cb_write")


def test_a_rule_that_cannot_be_measured_is_never_recommended() -> None:
    winner, rule = {**DEFAULT, "mpiio.cb_nodes": 4}, {**DEFAULT, "mpiio.cb_nodes": 2}
    bench = Bench()

    def failing_rule(config: Config, is_default: bool, number: int) -> float | None:
        return None if config == rule else bench(config, is_default, number)

    conf = confirm(DEFAULT, [(7, winner)], 3, failing_rule, maximize=True, rule=(2, rule, "broken"))
    assert conf.proven and not conf.recommends_rule and conf.recommended == {"mpiio.cb_nodes": 4}


def test_shown_over_the_default_the_confirmation_measures_on_until_the_winner_is_shown_over_the_rule() -> None:
    """The winner is 3.5x the default and 15% over the rule: the default's question is settled at an early look,
    the rule's is not; the rounds go on (winner and rule only) until it is."""
    def truth(c: Config) -> float:
        return 100.0 * {4: 3.45, 2: 3.0}.get(c["mpiio.cb_nodes"], 1.0)

    winner, other, rule = ({**DEFAULT, "mpiio.cb_nodes": 4}, {**DEFAULT, "mpiio.romio_cb_write": "disable"},
                           {**DEFAULT, "mpiio.cb_nodes": 2})
    bench = Bench(truth, jitter=0.08)
    conf = confirm(DEFAULT, [(7, winner), (8, other)], 80, bench, maximize=True, rule=(2, rule, "two"))
    assert conf.proven and not conf.recommends_rule and conf.recommended == {"mpiio.cb_nodes": 4}
    assert 3 < conf.rounds < 80 and conf.over_rule is not None and conf.over_rule["bound"] > 0
    runs = {k: sum(1 for c, _ in bench.calls if c == cfg)
            for k, cfg in (("winner", winner), ("other", other), ("default", DEFAULT))}
    # the runner-up and the default stopped at the look that showed the winner over the default
    assert runs["winner"] == conf.rounds and runs["other"] == runs["default"] < conf.rounds


def test_a_winner_within_the_jitter_of_the_rule_stops_once_shown_within_what_matters() -> None:
    """Winner and rule 1% apart: once the winner is shown within 5% of the rule the rule is recommended, long
    before the rounds run out."""
    def truth(c: Config) -> float:
        return 100.0 * {4: 3.03, 2: 3.0}.get(c["mpiio.cb_nodes"], 1.0)

    winner, rule = {**DEFAULT, "mpiio.cb_nodes": 4}, {**DEFAULT, "mpiio.cb_nodes": 2}
    conf = confirm(DEFAULT, [(7, winner)], 80, Bench(truth, jitter=0.05), maximize=True, rule=(2, rule, "two"))
    assert conf.proven and conf.recommends_rule and conf.rounds < 80

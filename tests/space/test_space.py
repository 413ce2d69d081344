from __future__ import annotations

import optuna
import pytest

from autotune.errors import ConfigError
from autotune.pattern import IOPattern
from autotune.space import SearchSpace, load_space
from autotune.systems import load_system

THETA = load_system("theta")
CORI = load_system("cori")
LOCAL = load_system("local")


def bind(space: str | SearchSpace, system=THETA, fs: str | None = None, **pat: object):
    pattern = IOPattern(**{"ranks": 4096, "nodes": 256, "bytes_per_rank": 1 << 20, **pat})  # type: ignore[arg-type]
    sp = load_space(space) if isinstance(space, str) else space
    return sp.bind(system, system.filesystem(fs), pattern)


def test_parameters_that_cannot_act_are_left_out_with_a_notice() -> None:
    b = bind("lustre-cray", LOCAL, ranks=4, nodes=1)
    names = {p.name for p in b.active}
    assert "lustre.stripe_count" not in names and "cray.cb_write_lock_mode" not in names
    assert any(n.startswith("lustre.stripe_count: not searched: striping needs a Lustre target") for n in b.notices)


def test_stripe_count_range_follows_the_osts_and_size_is_pow2() -> None:
    b = bind("lustre-cray")
    sc = next(p for p in b.active if p.name == "lustre.stripe_count")
    assert (sc.low, sc.high) == (1, 56)
    ss = next(p for p in b.active if p.name == "lustre.stripe_size")
    assert ss.optuna_name == "log2(lustre.stripe_size)" and ss.decode(23) == 8 << 20


def test_fixed_stripe_count_above_the_osts_is_a_one_line_error() -> None:
    sp = load_space("lustre-cray").customise(fixed={"lustre.stripe_count": 100})
    with pytest.raises(ConfigError, match=r"lustre.stripe_count: fixed value 100 breaks rule stripe_count_le_osts.*fs.osts = 56"):
        bind(sp)


def listed(choices: list[object], default: object = None) -> SearchSpace:
    spec = {"type": "categorical", "choices": choices, "default": choices[0] if default is None else default}
    return load_space("lustre-cray").customise(only=["lustre.stripe_count"], parameters={"lustre.stripe_count": spec})


def test_a_stripe_count_of_minus_one_is_every_ost_and_zero_the_file_system_s_default() -> None:
    """lfs(1): "stripe_count: Number of OSTs to stripe over (0 default, -1 all)"; bound, they are Theta's 56 and 1,
    so the rules, the model and the hints see counts, and the notice says what each was taken for."""
    b = bind(listed([0, 8, -1]))
    sc = next(p for p in b.active if p.name == "lustre.stripe_count")
    assert sc.choices == (1, 8, 56) and b.default_config()["lustre.stripe_count"] == 1
    assert "lustre.stripe_count: -1 is every OST (lfs setstripe -c -1): 56 on this target" in b.notices
    assert "lustre.stripe_count: 0 is the file system's default (lfs setstripe -c 0): 1 on this target" in b.notices
    assert bind(load_space("lustre-cray").customise(fixed={"lustre.stripe_count": -1})).fixed["lustre.stripe_count"] == 56


@pytest.mark.parametrize(("choices", "message"), [
    ([1, 56, -1], r"choices: -1 is every OST \(lfs setstripe -c -1\), 56 on this target, which is listed too"),
    ([0, 1, 8], r"choices: 0 is the file system's default \(lfs setstripe -c 0\), 1 on this target, which is listed"),
])
def test_an_alias_of_a_listed_stripe_count_is_a_one_line_error(choices: list[object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        bind(listed(choices))


def test_a_listed_count_is_an_integer_and_a_listed_size_may_carry_its_unit() -> None:
    """Quoted counts (YAML strings) are a one-line error naming the value, not a rule that cannot be evaluated;
    sizes may be written as a user writes them elsewhere (``4MiB``) and are shown back so."""
    with pytest.raises(ConfigError, match=r"stripe_count.choices: '4' is not an integer \(lustre.stripe_count is a count\)"):
        listed([1, "4"])
    sizes = {"type": "categorical", "choices": ["1MiB", "4MiB", 16 << 20], "default": "4MiB"}
    b = bind(load_space("lustre-cray").customise(only=["lustre.stripe_size"], parameters={"lustre.stripe_size": sizes}))
    ss = next(p for p in b.active if p.name == "lustre.stripe_size")
    assert ss.choices == (1 << 20, 4 << 20, 16 << 20) and b.default_config()["lustre.stripe_size"] == 4 << 20
    assert b.describe()[0].split() == ["lustre.stripe_size", "{1MiB,", "4MiB,", "16MiB}", "default", "4MiB"]
    with pytest.raises(ConfigError, match=r"lustre.stripe_size.choices: 'big' is not a size"):
        load_space("lustre-cray").customise(parameters={"lustre.stripe_size": {"type": "categorical",
                                                                                "choices": ["big"]}})


def test_only_the_documented_aliases_pass_below_the_minimum() -> None:
    with pytest.raises(ConfigError, match=r"lustre.stripe_count: -2 is below 1"):
        load_space("lustre-cray").customise(fixed={"lustre.stripe_count": -2})
    with pytest.raises(ConfigError, match=r"lustre.stripe_count.choices: -2 is below 1"):
        listed([1, -2])
    with pytest.raises(ConfigError, match=r"mpiio.cb_nodes.choices: 0 is below 1"):
        load_space("lustre-cray").customise(parameters={"mpiio.cb_nodes": {"type": "categorical", "choices": [0, 4]}})


def test_lock_mode_one_needs_all_collective_mpiio() -> None:
    b = bind("lustre-cray")
    cfg = {**b.default_config(), "cray.cb_write_lock_mode": 1}
    assert b.violations(cfg)["lock_mode_needs_all_collective"] > 0
    cfg["mpiio.romio_no_indep_rw"] = "true"
    assert b.feasible(cfg)
    hdf5 = bind("lustre-cray", library="hdf5")
    assert not hdf5.feasible({**hdf5.default_config(), "cray.cb_write_lock_mode": 1, "mpiio.romio_no_indep_rw": "true"})


def test_total_aggregators_include_the_multiplier_capped_at_the_ranks() -> None:
    b = bind("lustre-cray", ranks=64, nodes=4)
    cfg = {**b.default_config(), "mpiio.cb_nodes": 8, "cray.cb_nodes_multiplier": 4}
    assert b.env(cfg)["derived.aggregators"] == 32
    cfg = {**cfg, "mpiio.cb_nodes": 32}  # 128 asked, 64 ranks: the MPI-IO layer uses one per rank
    assert b.env(cfg)["derived.aggregators"] == 64 and b.feasible(cfg)


def test_striping_over_more_osts_than_ranks_is_legal_on_cray() -> None:
    # 128 ranks, stripe count 160 on Cori's 248 OSTs; Cray's default aggregators (one per stripe) are capped
    b = load_space("lustre-cray").customise(only=["lustre.stripe_count"]).bind(
        CORI, CORI.filesystem(None), IOPattern(ranks=128, nodes=128, bytes_per_rank=1 << 30))
    cfg = {**b.default_config(), "lustre.stripe_count": 160}
    assert b.feasible(cfg) and b.env(cfg)["derived.aggregators"] == 128


def test_datawarp_rules_capacity_and_matching() -> None:
    b = bind("datawarp-cray", CORI, "bb", ranks=2048, nodes=64, bytes_per_rank=256 << 20, library="hdf5")
    d = b.default_config()
    assert d["bb.nodes"] == 7  # 512 GiB of data / 82 GiB grains -> 7 nodes
    assert b.feasible(d)
    assert not b.feasible({**d, "bb.nodes": 2})  # 164 GiB cannot hold 512 GiB
    # 12 aggregators over 8 BB nodes write unevenly (slower, KAUST Shaheen II training) but run: the model
    # charges the imbalance, no rule refuses it
    assert b.feasible({**d, "bb.nodes": 8, "mpiio.cb_nodes": 12})
    assert b.feasible({**d, "bb.nodes": 8, "mpiio.cb_nodes": 16})


def test_suggest_and_round_trip_through_optuna() -> None:
    b = bind("lustre-cray")
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=1))
    for _ in range(20):
        t = study.ask(fixed_distributions=b.distributions())
        cfg = b.from_optuna(t.params)
        assert b.to_optuna(cfg) == t.params
        assert cfg["lustre.stripe_size"] & (cfg["lustre.stripe_size"] - 1) == 0
        study.tell(t, 1.0)


def test_unknown_parameters_and_keys_are_rejected() -> None:
    with pytest.raises(ConfigError, match="unknown parameter 'lustre.stripes'"):
        SearchSpace.parse({"parameters": {"lustre.stripes": {"type": "int", "low": 1, "high": 2}}})
    with pytest.raises(ConfigError, match="unknown key 'hihg'.*allowed: .*high"):
        SearchSpace.parse({"parameters": {"mpiio.cb_nodes": {"type": "int", "low": 1, "hihg": 2}}})
    with pytest.raises(ConfigError, match="default: 'sometimes' is not one of the choices"):
        SearchSpace.parse({"parameters": {"mpiio.romio_cb_write": {"type": "categorical", "choices": ["enable"],
                                                                    "default": "sometimes"}}})


def test_rule_trimming_part_of_a_range_is_a_notice_and_an_impossible_range_an_error() -> None:
    sp = SearchSpace.parse({"parameters": {"lustre.stripe_count": {"type": "int", "low": 1, "high": 200}}})
    b = bind(sp)
    assert any("break rule stripe_count_le_osts" in n for n in b.notices)
    sp = SearchSpace.parse({"parameters": {"lustre.stripe_count": {"type": "int", "low": 100, "high": 200}}})
    with pytest.raises(ConfigError, match="no value .* satisfies rule stripe_count_le_osts"):
        bind(sp)


def test_grid_enumerates_only_feasible_configurations() -> None:
    b = bind("datawarp-cray", CORI, "bb", ranks=256, nodes=8, bytes_per_rank=64 << 20)
    configs = list(b.grid(max_values=8))
    assert configs and all(b.feasible(c) for c in configs)

"""The compared methods (campaign overrides) and the rules of thumb as one-shot baselines."""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np

from autotune.optimize import PRIOR_TOP
from autotune.space import BoundSpace, Config

MIB = 1 << 20
SEARCH = ("autotune", "tpe", "gp", "cmaes", "random", "ga")
# Constants a mis-calibrated prior gets wrong (each x2 or /2, chosen per seed).
MISCAL_CONSTANTS = ("ost_write_bw", "oss_bw", "write_latency", "write_stream", "exchange_bw", "piece_cost",
                    "lock_time", "seek_time", "bb_node_bw", "dvs_request", "dvs_node_bw", "sync_per_rank",
                    "node_bw", "piece_contig")


def gp_available() -> bool:
    return importlib.util.find_spec("torch") is not None


def method_overrides(method: str, seed: int, trials: int) -> dict[str, Any]:
    """Campaign keys for ``method`` (``autotune`` = our default sampler: model prior + TPE, here with the
    adaptive repetitions a campaign turns on with ``objective.adaptive: true``; the campaign's default
    aggregate, the median of 3, for every method unless the method names another). Every method measures its
    sampler alone: the campaign's rules of thumb (run after the default since they became baselines) are left
    out (``sampler.rules_of_thumb: false``), so the committed results stay comparable; the rules are their own
    one-shot baselines here (``rules_of_thumb`` below)."""
    over = _method_overrides(method, seed, trials)
    over["sampler"] = {**over["sampler"], "rules_of_thumb": False}
    return over


def _method_overrides(method: str, seed: int, trials: int) -> dict[str, Any]:
    fixed = {"repeats": 3, "adaptive": False}
    if method == "autotune":
        return {"sampler": {"name": "autotune", "seed": seed}, "objective": {"repeats": 3, "adaptive": True}}
    if method in ("tpe", "gp", "cmaes", "random", "ga"):
        return {"sampler": {"name": method, "seed": seed}, "objective": fixed}
    if method.startswith("autotune-"):  # experiments: autotune with sampler.prior / sampler.options changed
        prior: dict[str, Any] = {"top": PRIOR_TOP}
        options: dict[str, Any] = {}
        objective: dict[str, Any] = {"repeats": 3, "adaptive": True}
        for part in method.split("-")[1:]:
            if part == "topk":  # the model's top picks as ranked (the start before the diverse one)
                prior.update(diverse=False, top=3)
            elif part.startswith("top"):
                prior["top"] = int(part[3:])
            elif part in ("median", "mean", "best"):  # autotune-best: best of N, the default before `auto`
                objective["aggregate"] = part
            elif part == "nobridge":
                options["bridge"] = False
            elif part.startswith("gp"):
                options["gp_trials"] = int(part[2:])
        return {"sampler": {"name": "autotune", "seed": seed, "prior": prior, "options": options},
                "objective": objective}
    if method == "cold":  # autotune without the model-informed start
        return {"sampler": {"name": "autotune", "seed": seed, "prior": False}, "objective": {"repeats": 3, "adaptive": True}}
    if method == "cold-gp":  # autotune without the model start, a GP for the first 60 trials instead of TPE
        return {"sampler": {"name": "autotune", "seed": seed, "prior": False, "options": {"gp_trials": 60}},
                "objective": {"repeats": 3, "adaptive": True}}
    if method.startswith("cold-n"):  # fixed best-of-N, no prior
        n = int(method[len("cold-n"):])
        return {"sampler": {"name": "autotune", "seed": seed, "prior": False},
                "objective": {"repeats": n, "adaptive": False}}
    if method == "refit":  # autotune with the model in the loop (refitted to the campaign's runs)
        return {"sampler": {"name": "autotune", "seed": seed, "prior": {"top": 3, "refit": True}},
                "objective": {"repeats": 3, "adaptive": True}}
    if method in ("miscal", "miscal-refit"):
        rng = np.random.default_rng(1000 + seed)
        scale = {k: float(rng.choice([0.5, 2.0])) for k in MISCAL_CONSTANTS}
        return {"sampler": {"name": "autotune", "seed": seed,
                            "prior": {"top": 3, "scale": scale, "refit": method == "miscal-refit"}},
                "objective": {"repeats": 3, "adaptive": True}}
    raise ValueError(f"unknown method {method!r}")


def _clamp(space: BoundSpace, config: Config) -> Config | None:
    out = dict(config)
    for p in space.active:
        if p.name in out and not p.contains(out[p.name]):
            vals = p.values(100_000)
            if isinstance(out[p.name], int) and all(isinstance(v, int) for v in vals):
                out[p.name] = min(vals, key=lambda v: abs(v - out[p.name]))
            else:
                return None
    return out if space.feasible(out) else None


def rules_of_thumb(space: BoundSpace) -> dict[str, Config]:
    """One-shot configurations from the cited sources' advice (docs/references.md) that apply to this target."""
    base = space.default_config()
    names = {p.name for p in space.active}
    out: dict[str, Config] = {}
    if space.fs.kind == "lustre":
        # NERSC Cori I/O talk: stripe_small / medium / large = 8 / 24 / 72 OSTs of 1 MiB; Cray aggregators = stripe count
        for rule, count in (("stripe_small", 8), ("stripe_medium", 24), ("stripe_large", 72)):
            cfg = {**base, "lustre.stripe_count": count, "lustre.stripe_size": MIB}
            if "mpiio.cb_nodes" in names:
                cfg["mpiio.cb_nodes"] = count
            out[f"rule:{rule}"] = cfg
        osts = int(space.fs.osts or 1)
        cfg = {**base, "lustre.stripe_count": osts, "lustre.stripe_size": MIB}
        if "mpiio.cb_nodes" in names:  # KAUST Shaheen II training: stripe over all OSTs, as many aggregators as OSTs
            cfg["mpiio.cb_nodes"] = osts
        out["rule:aggregators=stripe_count"] = cfg
    if space.fs.kind == "datawarp" and "mpiio.cb_nodes" in names:
        nodes = int(base.get("bb.nodes", 1))  # the smallest allocation that holds the data
        out["rule:one_aggregator_per_bb_node"] = {**base, "mpiio.cb_nodes": nodes}
    clamped = {k: _clamp(space, v) for k, v in out.items()}
    return {k: v for k, v in clamped.items() if v is not None}

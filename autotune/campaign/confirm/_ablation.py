"""The interleaved rounds of the confirmation, and the ablation of the winner's settings.

The winner's changed settings that cannot act are dropped without measuring; the others are ablated: each reset
to its default and measured interleaved with the winner. A setting is dropped only when it is shown not to carry
the gain: its cost is within the jitter (the 95% interval reaches zero), and the upper ends of the 95% intervals
of the dropped settings' costs, added up, stay below the winner's confirmed lower bound and below what matters
(``matters``: dropping a setting must not risk more than the campaign counts as worth having); settings that only act
together (neither alone costs a clear amount, both together the whole gain) are therefore kept together, and if
every setting would go, the one whose loss costs most stays.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from autotune.campaign.confirm._record import Confirmation
from autotune.campaign.confirm._rule import log_margin
from autotune.hints import inert
from autotune.measure import margin, paired
from autotune.space import Config

Measure = Callable[[Config, bool, int], float | None]  # (config, is_default, run id) -> value


def interleaved(configs: Sequence[tuple[Config, bool]], rounds: int, measure: Measure, base: int,
                first: int = 0, active: Sequence[bool] | None = None) -> list[list[float | None]]:
    """Rounds ``first`` .. ``first + rounds - 1`` over ``configs``, each round rotated by one (A B C, B C A, ...);
    values per config (None where a config is not ``active``)."""
    n = len(configs)
    out: list[list[float | None]] = [[] for _ in configs]
    for r in range(first, first + rounds):
        for j in range(n):
            i = (j + r) % n
            cfg, is_default = configs[i]
            out[i].append(measure(cfg, is_default, base + r * 64 + i) if active is None or active[i] else None)
    return out


def ablate(conf: Confirmation, cfg: Config, default: Config, measure: Measure, maximize: bool,
            phases: Sequence[str], base: int, rounds: int, left: int | None = None) -> dict[str, Any]:
    """The winner's changed settings that can act and matter (see the module's docstring); ``left``: the runs
    the ablation may make (too few for 2 rounds: no ablation, every setting that can act is kept)."""
    changed = {k: v for k, v in cfg.items() if default.get(k) != v}
    for name, why in inert(changed, phases).items():
        conf.dropped[name] = why
        changed.pop(name)
    if len(changed) > 1 and left is not None:
        rounds = min(rounds, left // (1 + len(changed)))
        if rounds < 2:
            conf.note = (f"no ablation: {left} run(s) left of the confirmation's budget, fewer than 2 rounds of the "
                         f"winner and its {len(changed)} settings reset one at a time; all its settings are kept")
            return changed
    if len(changed) > 1:
        ablated = [({**cfg, **{k: default.get(k)}}, False) for k in changed]
        res = interleaved([(cfg, False), *ablated], rounds, measure, base + 32)
        highs: dict[str, float] = {}  # the upper ends of the costs that are not shown to be above zero
        for k, v in zip(changed, res[1:], strict=True):
            est = paired(res[0], v, maximize)
            log, (clo, chi) = (est.log, est.interval()) if est else (0.0, (-float("inf"), float("inf")))
            conf.ablation[k] = {"values": v, "cost": margin(log, maximize), "low": margin(clo, maximize),
                                "high": margin(chi, maximize)}
            if clo <= 0:
                highs[k] = chi
        # drop only what is shown not to carry the gain: a cost within the jitter, and the upper ends of the
        # dropped settings' costs together below the winner's confirmed lower bound and below what matters (settings
        # that act together are kept together)
        budget = log_margin(conf.bound, maximize) if conf.bound is not None and conf.bound > -1 else 0.0
        budget = min(budget, log_margin(conf.matters, maximize))
        spent = 0.0
        for k in sorted(highs, key=lambda k: highs[k]):
            if spent + max(highs[k], 0.0) >= budget:
                break
            spent += max(highs[k], 0.0)
            a = conf.ablation[k]
            conf.dropped[k] = (f"dropping it cost {a['cost']:+.1%} (95% interval {a['low']:+.1%} to {a['high']:+.1%}): "
                               f"within the jitter, and with the other settings dropped less than the confirmed gain "
                               f"(at least {conf.bound:+.1%}) and than what matters ({conf.matters:.0%})")
        if all(k in conf.dropped for k in changed):  # together they won: keep the one whose loss costs most
            conf.dropped.pop(max(changed, key=lambda k: conf.ablation[k]["cost"]))
        changed = {k: v for k, v in changed.items() if k not in conf.dropped}
    return changed

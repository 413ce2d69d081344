"""How much the search's aggregate of N overstates a campaign's gain over the default; how much the confirmation corrects it."""

from __future__ import annotations

from typing import Any

from autotune.campaign import TrialOutcome
from autotune.campaign.confirm import TOP, confirm
from experiments.evaluation.evalkit.truths import SurfaceTruth, draw_key


def gain_record(tr: SurfaceTruth, study: str, seed: int, outcomes: list[TrialOutcome], rounds: int = 3,
                aggregate: str = "") -> dict[str, Any] | None:
    """Claimed (the campaign's ``aggregate`` of N), true (noiseless truth) and confirmed gains of one finished campaign."""
    default = next((o for o in outcomes if o.is_default and o.ok), None)
    done = sorted((o for o in outcomes if o.ok and not o.is_default), key=lambda o: float(o.value or 0.0), reverse=True)
    if default is None or not done or not default.value:
        return None
    d_true = tr.value(tr.space.default_config())
    best = done[0]
    top: list[tuple[int, Any]] = []
    for o in done:
        if all(o.config != c for _, c in top):
            top.append((o.number, o.config))
        if len(top) == TOP:
            break

    def measure(config: Any, is_default: bool, number: int) -> float:
        return tr.draw(config, draw_key(study, seed, 7, number))[0]

    conf = confirm(tr.space.default_config(), top, rounds, measure, True)
    rec_cfg = {**tr.space.default_config(), **conf.recommended}
    winner = next(c["config"] for c in conf.candidates if c["label"] == conf.winner)
    return {"claimed": float(best.value or 0.0) / float(default.value) - 1.0, "aggregate": aggregate,
            "true_of_best": tr.value(best.config) / d_true - 1.0,
            "confirmed_margin": conf.margin, "confirmed_low": conf.low, "confirmed_high": conf.high,
            "true_of_winner": tr.value(winner) / d_true - 1.0,
            "proven": conf.proven, "true_of_recommended": tr.value(rec_cfg) / d_true - 1.0,
            "exported_settings": len(conf.recommended), "best_settings_changed":
                sum(1 for k, v in best.config.items() if tr.space.default_config().get(k) != v)}

"""Structurally different truths: the performance model's terms recombined under other mechanisms.

Each variant takes the model's per-phase terms (``autotune.model.predict``) and changes a mechanism, not a
constant: a term removed (``no-locks``: Lustre extent-lock contention does not exist; ``free-cache``: the
client write-back cache costs nothing, as when the file system acknowledges writes in memory), or a
different contention curve (``ost-contention``: each OST beyond 16 in a stripe slows the transfer, as on a
file system shared with other jobs; ``aggregator-contention``: collective-buffering work grows with the
number of aggregators beyond 8 per 1000 ranks, as on a network where the exchange congests). The
``variant`` launcher runs campaigns on a variant with the model's run-to-run noise.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import numpy as np

from autotune._registry import Option
from autotune.errors import AutotuneError
from autotune.launch import LAUNCHERS, BaseLauncher, RunRequest, RunResult
from autotune.model import NoiseModel, PhasePrediction, Prediction, Term, predict
from autotune.pattern import IOPattern
from autotune.systems import SystemProfile

_MIB = 1 << 20
TermFn = Callable[[Term, Prediction, Mapping[str, Any], IOPattern], float]


def _no_locks(t: Term, pred: Prediction, cfg: Mapping[str, Any], p: IOPattern) -> float:
    return 0.0 if t.resource == "lock contention" else t.seconds


def _free_cache(t: Term, pred: Prediction, cfg: Mapping[str, Any], p: IOPattern) -> float:
    return 0.0 if t.resource == "client cache" else t.seconds


def _ost_contention(t: Term, pred: Prediction, cfg: Mapping[str, Any], p: IOPattern) -> float:
    if not t.name.endswith("transfer") and not t.name.startswith("aggregator"):
        return t.seconds
    stripes = int(cfg.get("lustre.stripe_count", 1))
    return t.seconds * (1.0 + 0.02 * max(0, stripes - 16))


def _aggregator_contention(t: Term, pred: Prediction, cfg: Mapping[str, Any], p: IOPattern) -> float:
    if t.resource not in ("exchange phase", "aggregator imbalance") and not t.name.startswith("aggregator"):
        return t.seconds
    knee = max(1.0, 8.0 * p.ranks / 1000.0)
    return t.seconds * (1.0 + max(0.0, pred.aggregators / knee - 1.0) ** 1.5)


VARIANTS: dict[str, TermFn] = {
    "no-locks": _no_locks, "free-cache": _free_cache, "ost-contention": _ost_contention,
    "aggregator-contention": _aggregator_contention,
}


def variant_prediction(variant: str, pattern: IOPattern, system: SystemProfile, fs: str,
                       config: Mapping[str, Any]) -> Prediction:
    """The model's prediction with the mechanism of ``variant`` (each term's seconds recomputed)."""
    fn = VARIANTS[variant]
    pred = predict(pattern, system, fs, config)
    phases = tuple(PhasePrediction(ph.op, ph.bytes, tuple(Term(t.name, t.resource, fn(t, pred, config, pattern), t.detail)
                                                          for t in ph.terms), ph.limits) for ph in pred.phases)
    return Prediction(phases, pred.filesystem, pred.kind, pred.aggregators, pred.hints_requested,
                      pred.hints_in_effect, pred.notes)


def metrics_of(pred: Prediction) -> dict[str, float]:
    """Kernel-style metrics (``write_bandwidth_mib_s``, ``seconds``, ...) of a prediction."""
    out: dict[str, float] = {}
    for op in ("write", "read"):
        phases = [ph for ph in pred.phases if ph.op == op]
        if phases:
            secs = sum(ph.seconds for ph in phases)
            out[f"{op}_seconds"] = secs
            out[f"{op}_bandwidth_mib_s"] = sum(ph.bytes for ph in phases) / _MIB / secs
    out["seconds"] = pred.seconds
    out["bandwidth_mib_s"] = pred.bytes / _MIB / pred.seconds
    return out


class VariantLauncher(BaseLauncher):
    """A repetition on a structural variant of the model, with the model's noise (evaluation only)."""

    name: ClassVar[str] = "variant"
    schema = (Option.text("variant", "the structural variant"), Option.flag("noise", "the model's noise on"))
    runs_command: ClassVar[bool] = False

    def describe(self, request: RunRequest) -> str:
        return f"variant {self.options.get('variant')} {dict(request.config)}"

    def run(self, request: RunRequest) -> RunResult:
        try:
            pred = variant_prediction(str(self.options["variant"]), request.app.pattern, request.system,
                                      request.fs.name, request.config)
        except AutotuneError as exc:
            return RunResult(returncode=1, stderr=str(exc), error=str(exc))
        rng = np.random.default_rng([zlib.crc32(request.campaign.encode()), request.seed, request.trial,
                                     request.repetition])
        run = NoiseModel(enabled=bool(self.options.get("noise", True))).sample(pred, rng)
        m = metrics_of(run)
        return RunResult(returncode=0, stdout=json.dumps({"metrics": m}) + "\n", wall_seconds=m["seconds"])


LAUNCHERS.register_lazy(VariantLauncher.name, f"{__name__}:VariantLauncher")  # the one way a launcher is added

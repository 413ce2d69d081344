"""``tune --dry-run``: the proposals the real run will make, from the loop's own study set-up.

The campaign loop opens its study (same sampler, same seed, same enqueued default, model-informed and
warm-start configurations) against an in-memory storage and asks as the real run would. Proposals after
the first few depend on the measured values, which a dry run cannot know: the proposals are simulated
with made-up value sequences that rank the trials differently, and only the common prefix (what does not depend on
the measurements) is shown as what the real run will run.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass, replace

import optuna

from autotune import trialrecord
from autotune.campaign.confirm import dry_run_lines
from autotune.campaign.file import Campaign
from autotune.campaign.run import CampaignLoop
from autotune.campaign.study import open_study
from autotune.campaign.trial import Runtime
from autotune.errors import AutotuneError
from autotune.space import Config


@dataclass(frozen=True)
class Proposal:
    number: int  # the trial number the real run gives it
    config: Config
    is_default: bool
    initial: bool  # enqueued: the model's pick or a warm-start configuration
    baseline: bool = False  # enqueued: the campaign's `baseline:` (the app's own settings)
    rule: str = ""  # enqueued: the rule(s) of thumb it runs


class _DryLoop(CampaignLoop):
    def _clean_stale_data(self, study: optuna.Study) -> None:
        """A dry run touches no data directory."""


def simulate(c: Campaign, rt: Runtime, n: int, value: Callable[[int], float]) -> list[Proposal]:
    """The first ``n`` runnable proposals when the k-th run measures ``value(k)``."""
    mem = c.with_overrides(storage_url=":memory:")
    loop = _DryLoop(mem, runtime=replace(rt, campaign=mem), out=io.StringIO(), progress=False)
    study = loop.open()
    out: list[Proposal] = []
    asked = 0
    while len(out) < n and asked < 100 * max(n, 1):
        asked += 1
        if loop._budget_left(study, 0.0, []) == "exhausted":
            break
        proposed = loop._propose(study)
        if proposed is None:
            continue
        trial, config = proposed
        rec = trialrecord.read(trial)
        out.append(Proposal(trial.number, config, rec.is_default, rec.initial, rec.baseline, rec.rule_of_thumb))
        trialrecord.write(trial, repetitions=[value(len(out) - 1)])
        study.tell(trial, value(len(out) - 1))
    return out


# made-up measurements that rank the trials in different orders
_SEQUENCES: tuple[Callable[[int], float], ...] = (
    lambda k: 100.0 + k, lambda k: 1000.0 - k, lambda k: 50.0 + (k * 7919) % 97, lambda k: 50.0 + (k * 104729) % 89)


def _model_phase_start(sampler: dict[str, object]) -> int | None:
    """From which runnable trial on a value-driven sampler uses the measurements (None: never)."""
    name = sampler.get("name", "autotune")
    options = sampler.get("options") if isinstance(sampler.get("options"), dict) else {}
    startup = sampler.get("startup_trials")
    if name in ("random", "grid"):
        return None
    if name == "tpe":
        return int(startup) if isinstance(startup, int) else 5
    if name == "autotune":
        warmup = options.get("warmup", 4) if isinstance(options, dict) else 4
        return min(int(startup) if isinstance(startup, int) else 5, int(warmup))  # type: ignore[call-overload]
    if name == "gp":
        return int(startup) if isinstance(startup, int) else 10
    return int(startup) if isinstance(startup, int) else 1  # cmaes, ga: the empirical check decides the rest


def proposals(c: Campaign, rt: Runtime, n: int) -> tuple[list[Proposal], bool]:
    """Up to ``n`` proposals the real run will make whatever it measures, and whether later ones depend on it.

    A proposal counts when it is enqueued (the default, the rules of thumb, the model's picks, warm start) or comes before the
    sampler's value-driven phase, and every made-up value sequence gives the same one.
    """
    runs = [simulate(c, rt, n, seq) for seq in _SEQUENCES]
    start = _model_phase_start(c.sampler)
    same = 0
    for k, p in enumerate(runs[0]):
        agree = all(len(r) > k and r[k] == p for r in runs[1:])
        if not agree or not (p.is_default or p.initial or p.baseline or p.rule or start is None or k < start):
            break
        same += 1
    return runs[0][:same], same < len(runs[0])


def dry_run_confirmation_lines(c: Campaign, rt: Runtime) -> list[str]:
    """The confirmation's budget as ``tune --dry-run`` states it (``_confirmbudget.dry_run_lines``), at the noise
    the campaign's study has seen when it exists (read only), else at the assumed noise."""
    study = None
    if c.storage != ":memory:":
        try:
            study = open_study(c, rt.space, create=False)
        except (AutotuneError, OSError, ValueError):
            study = None  # nothing measured yet
    return dry_run_lines(c, study)

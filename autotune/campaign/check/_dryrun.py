"""``tune --dry-run``: the proposals the real run will make, from the loop's own study set-up.

The campaign loop opens its study (same sampler, same seed, same enqueued default, model-informed and
warm-start configurations) against an in-memory storage and asks as the real run would. Proposals after
the first few depend on the measured values, which a dry run cannot know: the proposals are simulated
with made-up value sequences that rank the trials differently, and only the common prefix (what does not depend on
the measurements) is shown as what the real run will run.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import optuna

from autotune import trialrecord
from autotune._safefile import make_dirs, write_file
from autotune._shell import comment, quote
from autotune.campaign.check._check import what_it_gets
from autotune.campaign.confirm import dry_run_lines
from autotune.campaign.file import Campaign
from autotune.campaign.run import CampaignLoop, preflight
from autotune.campaign.study import open_study
from autotune.campaign.trial import Runtime, reservation_job
from autotune.errors import AutotuneError
from autotune.optimize import model_line, model_verdict
from autotune.space import Config, rules_of_thumb


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
    asked, started = 0, time.monotonic()
    while len(out) < n and asked < 100 * max(n, 1):
        asked += 1
        if loop._stop(study, started, []) is not None:  # the real loop's reasons to stop
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
    """The confirmation's budget as ``tune --dry-run`` states it (``campaign.confirm._budget.dry_run_lines``), at the noise
    the campaign's study has seen when it exists (read only), else at the assumed noise."""
    study = None
    if c.storage != ":memory:":
        try:
            study = open_study(c, rt.space, create=False)
        except (AutotuneError, OSError, ValueError):
            study = None  # nothing measured yet
    return dry_run_lines(c, study)


@dataclass
class DryRun:
    """What ``tune --dry-run`` shows: ``text`` for stdout, the ``files`` it wrote (under ``WORKDIR/dry-run``) and
    the launcher's preflight refusal as a ``warning`` (scripts for another site stay viewable)."""

    chunks: list[str] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    warning: str | None = None

    def say(self, text: str, end: str = "\n") -> None:
        self.chunks.append(text + end)

    @property
    def text(self) -> str:
        return "".join(self.chunks)


def _show_reservation_job(c: Campaign, action: str, out_dir: Path, dry: DryRun) -> None:
    """A persistent campaign's set-up (``create``) or tear-down (``destroy``) job script, shown and written."""
    p = c.persistent
    text = reservation_job(c, action)
    if p is None or text is None:
        if p is not None:
            dry.say("\n" + comment(f"---- no {action} job: the reservation {p.name} is "
                                    + ("named as existing" if action == "create" else "kept at the end")))
        return
    path = out_dir / f"bb-{action}.sh"
    write_file(path, text)
    dry.files.append(path)
    when = "before the first trial (once; a resumed campaign finds it)" if action == "create" else "after the last trial"
    dry.say("\n" + comment(f"---- {action} job for the persistent reservation {p.name}, {when}"))
    dry.say(comment(f"written to {path}"))
    dry.say(text, end="")


def _label(p: Proposal, thumbs: dict[str, str]) -> str:
    return (" (the default configuration)" if p.is_default else
            " (the baseline: the app's own settings)" if p.baseline else
            f" (rule of thumb {p.rule}: {thumbs.get(p.rule, '')})" if p.rule else
            " (enqueued: model-ranked or warm start)" if p.initial else "")


def dry_run(rt: Runtime, trials: int | None) -> DryRun:
    """What the first trials of the real run will run (at most ``trials``, 5 by default, 50 at most): the loop's own
    proposals, each with the exact command, environment and files, written to ``WORKDIR/dry-run/trial-NNNN.txt``;
    nothing runs, nothing is submitted, no storage is touched."""
    c = rt.campaign
    dry = DryRun()
    for n in rt.space.notices:
        dry.say(f"notice: {n}")
    shown, depends = proposals(c, rt, min(trials or 5, 50))  # ranks the model's picks once (``rt.starts``)
    why = model_verdict(c, rt.space, rt.starts)
    if why:
        dry.say(model_line(why))
    dry.say(f"search space on {c.system.name}/{c.fs.name}:")
    dry.say("\n".join(f"  {ln}" for ln in rt.space.describe()))
    if c.sampler.get("seed") is None and c.sampler.get("name") != "grid":
        dry.say("note: sampler.seed is not set: proposals after the enqueued ones differ from run to run")
    baselines, notes = rules_of_thumb(rt.space) if c.sampler.get("rules_of_thumb", True) else ([], [])
    thumbs = {b.name: b.source for b in baselines}
    for line in notes:
        dry.say(f"notice: {line}")
    out_dir = c.workdir / "dry-run"
    make_dirs(out_dir, under=c.workdir)
    _show_reservation_job(c, "create", out_dir, dry)
    for p in shown:
        command, env, files = what_it_gets(rt, rt.request(p.number, 0, p.config, p.is_default, seeded=False))
        text = [command]
        text += [comment(f"environment: {k}={quote(v)}") for k, v in sorted(env.items())]
        for path, content in sorted(files.items()):
            text += [comment(f"file {path}:"), *(comment(f"  {ln}") for ln in content.splitlines())]
        written = out_dir / f"trial-{p.number:04d}.txt"
        write_file(written, "\n".join(text) + "\n")
        dry.files.append(written)
        config = ", ".join(f"{k}={v}" for k, v in sorted(p.config.items()))
        dry.say("\n" + comment(f"---- trial {p.number}{_label(p, thumbs)}: {config}"))
        dry.say(comment(f"written to {written}"))
        dry.say("\n".join(text))
    _show_reservation_job(c, "destroy", out_dir, dry)
    if depends:
        dry.say("\n" + comment(f"the proposals after trial {shown[-1].number if shown else 0} depend on the "
                                         "measured values: the real run makes them from what it measures"))
    dry.say("\n" + "\n".join(comment(line) for line in dry_run_confirmation_lines(c, rt)))
    try:  # the scheduler's verdict on the first job
        note = preflight(rt)
    except AutotuneError as exc:
        dry.warning = f"{exc} (the campaign would stop here with exit code 2)"
    else:
        if note:
            dry.say("\n" + comment(f"preflight: {note}"))
    return dry

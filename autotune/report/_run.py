"""``autotune compare``: run or resume each campaign within one shared wall-time budget, then report."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

import optuna

from autotune.campaign import Campaign, Runtime, open_study
from autotune.errors import ConfigError
from autotune.execute import run_with_executor
from autotune.report._build import Report, build_report
from autotune.tracking import campaign_tracker


@dataclass
class CompareResult:
    report: Report
    stopped_by: dict[str, str] = field(default_factory=dict)  # campaign -> "trials" | "wall_time" | ...

    @property
    def interrupted(self) -> bool:
        return "interrupted" in self.stopped_by.values()

    @property
    def out_of_time(self) -> bool:
        return "wall_time" in self.stopped_by.values()


def check_distinct(campaigns: list[Campaign]) -> None:
    """Two campaigns of a comparison may not share a study in one storage (they would mix trials)."""
    seen: dict[tuple[str, str], str] = {}
    for c in campaigns:
        key = (c.storage, c.study)
        if key in seen:
            raise ConfigError(f"compare: campaigns {seen[key]!r} and {c.name!r} share study {c.study!r} in "
                              f"{c.storage}: give them different names or studies")
        seen[key] = c.name


def _tracker(c: Campaign):  # type: ignore[no-untyped-def]
    return campaign_tracker(c.tracking, experiment=c.name, uri=c.tracking_uri, workdir=c.workdir)


def run_campaigns(campaigns: list[Campaign], *, wall_time: float | None, out: TextIO,
                  command_line: str = "") -> dict[str, str]:
    """Run or resume each campaign in turn with the executor its ``executor:`` names (as ``tune`` does); a
    wall-time budget is shared (each gets its share of what is left)."""
    deadline = time.monotonic() + wall_time if wall_time is not None else None
    stopped: dict[str, str] = {}
    for i, c in enumerate(campaigns):
        if deadline is not None:
            left = deadline - time.monotonic()
            share = max(0.0, left / (len(campaigns) - i))
            c = c.with_overrides(budget=c.budget.__class__(c.budget.trials, share, c.budget.run_timeout))
        print(f"== {c.name}: {c.system.name}/{c.fs.name} ({c.study} in {c.storage})", file=out, flush=True)
        result = run_with_executor(c, Runtime.build(c), tracker=_tracker(c), command_line=command_line, out=out)
        stopped[c.name] = result.stopped_by
        if result.stopped_by == "interrupted":
            break
    return stopped


def open_all(campaigns: list[Campaign]) -> list[tuple[Runtime, optuna.Study]]:
    """Each campaign's runtime and study, read from its storage (nothing is run)."""
    pairs = []
    for c in campaigns:
        rt = Runtime.build(c)
        pairs.append((rt, open_study(c, rt.space, create=False)))
    return pairs


def compare_campaigns(campaigns: list[Campaign], report_dir: Path, *, run: bool = True, wall_time: float | None = None,
                      out: TextIO, command_line: str = "", tracking_uri: str | None = None) -> CompareResult:
    """Run (unless ``run`` is False) then report; the report always comes from the storages."""
    check_distinct(campaigns)
    stopped = run_campaigns(campaigns, wall_time=wall_time, out=out, command_line=command_line) if run else {}
    first = campaigns[0]
    uri = tracking_uri
    if uri is None:
        uri = first.mlflow_uri
    report = build_report(open_all(campaigns), report_dir, tracking_uri=uri,
                          artifact_root=first.workdir / "mlartifacts")
    return CompareResult(report, stopped)

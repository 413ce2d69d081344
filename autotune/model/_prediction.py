"""What the model returns: per-phase times made of named terms, and a printable explanation."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

_MIB = 1 << 20

# The metrics the model predicts (``Prediction.metric``): the kernels' names.
MODEL_METRICS = ("bandwidth_mib_s", "seconds", "write_bandwidth_mib_s", "write_seconds", "read_bandwidth_mib_s",
                 "read_seconds")

# The resources a term may be charged to (the model's list).
RESOURCES = (
    "OSTs", "OSS", "client injection", "client cache", "aggregators", "aggregator imbalance",
    "lock contention", "BB nodes", "DVS requests", "exchange phase", "collective sync", "metadata", "disk",
)


@dataclass(frozen=True)
class Term:
    """One named mechanism's contribution to a phase: ``seconds`` charged to ``resource``."""

    name: str
    resource: str
    seconds: float
    detail: str = ""


@dataclass(frozen=True)
class Limit:
    """A bandwidth ceiling considered for the data-movement stage (the smallest one binds)."""

    resource: str
    bytes_per_s: float


@dataclass(frozen=True)
class PhasePrediction:
    """One phase (write or read): its terms add up to ``seconds``."""

    op: str
    bytes: int
    terms: tuple[Term, ...]
    limits: tuple[Limit, ...] = ()
    scale: float = 1.0  # run-to-run noise factor (1.0 for the noiseless prediction)

    @property
    def seconds(self) -> float:
        return self.scale * sum(t.seconds for t in self.terms)

    @property
    def bandwidth_mib_s(self) -> float:
        return self.bytes / _MIB / self.seconds if self.seconds > 0 else 0.0

    @property
    def bandwidth_gb_s(self) -> float:
        return self.bytes / 1e9 / self.seconds if self.seconds > 0 else 0.0

    @property
    def bound(self) -> str:
        """The resource charged the most time in this phase."""
        by: dict[str, float] = {}
        for t in self.terms:
            by[t.resource] = by.get(t.resource, 0.0) + t.seconds
        return max(by, key=by.__getitem__) if by else ""

    def term(self, name: str) -> Term | None:
        return next((t for t in self.terms if t.name == name), None)


@dataclass(frozen=True)
class Prediction:
    """The model's answer for one pattern, system, file system and configuration."""

    phases: tuple[PhasePrediction, ...]
    filesystem: str
    kind: str
    aggregators: int
    hints_requested: dict[str, Any] = field(default_factory=dict)
    hints_in_effect: dict[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def seconds(self) -> float:
        return sum(p.seconds for p in self.phases)

    @property
    def bytes(self) -> int:
        return sum(p.bytes for p in self.phases)

    @property
    def bandwidth_mib_s(self) -> float:
        s = self.seconds
        return self.bytes / _MIB / s if s > 0 else 0.0

    @property
    def bandwidth_gb_s(self) -> float:
        s = self.seconds
        return self.bytes / 1e9 / s if s > 0 else 0.0

    def phase(self, op: str) -> PhasePrediction:
        for p in self.phases:
            if p.op == op:
                return p
        raise KeyError(op)

    def metric(self, name: str) -> float | None:
        """The kernels' metric ``name`` (``bandwidth_mib_s``, ``seconds``, ``write_seconds``, ...), or None."""
        if name == "bandwidth_mib_s":
            return self.bandwidth_mib_s
        if name == "seconds":
            return self.seconds
        for op in ("write", "read"):
            phases = [p for p in self.phases if p.op == op]
            if phases and name in (f"{op}_bandwidth_mib_s", f"{op}_seconds"):
                secs = sum(p.seconds for p in phases)
                if name.endswith("seconds"):
                    return secs
                return sum(p.bytes for p in phases) / _MIB / secs if secs > 0 else 0.0
        return None

    def scaled(self, factors: list[float]) -> Prediction:
        """The same prediction with each phase's time multiplied by ``factors[i]`` (noise)."""
        phases = tuple(replace(p, scale=p.scale * f) for p, f in zip(self.phases, factors, strict=True))
        return replace(self, phases=phases)

    def explain(self) -> str:
        """Text: per phase, time and bandwidth, what bounds it, and every term's share."""
        lines = [(f"{self.kind} {self.filesystem}: {self.seconds:.4g} s, {self.bandwidth_gb_s:.4g} GB/s"
                 f" ({self.bandwidth_mib_s:.6g} MiB/s), {self.aggregators} aggregator(s)")]
        for p in self.phases:
            lines.append(f"  {p.op}: {p.bytes / 1e9:.4g} GB in {p.seconds:.4g} s = {p.bandwidth_gb_s:.4g} GB/s,"
                         f" bound by {p.bound}" + (f" (noise x{p.scale:.3f})" if p.scale != 1.0 else ""))
            total = sum(t.seconds for t in p.terms) or 1.0
            for t in sorted(p.terms, key=lambda t: -t.seconds):
                extra = f"  {t.detail}" if t.detail else ""
                share = 100 * t.seconds / total
                lines.append(f"    {t.name:<22} {t.resource:<20} {t.seconds:10.4g} s {share:5.1f}%{extra}")
            if p.limits:
                lims = ", ".join(f"{lim.resource} {lim.bytes_per_s / 1e9:.3g}" for lim in p.limits)
                lines.append(f"    ceilings (GB/s): {lims}")
        lines.extend(f"  note: {n}" for n in self.notes)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.explain()


def judged_metric(metric: str, kind: str | None, phases: tuple[str, ...] | list[str]) -> tuple[str | None, str]:
    """The model's name for a campaign's metric, or ``(None, why)``.

    A built-in name is itself. A metric of the user's own declared as a bandwidth or a time (its unit: MiB/s,
    GB/s, s, ...) is what the model predicts for the pattern's phases: with phases ``[write]`` the write phase's
    bandwidth (``write_bandwidth_mib_s``) or time (``write_seconds``), likewise for ``[read]``, and with both
    the whole run's. Values are stored in MiB/s and seconds whatever unit the application prints, so the
    model's figures and the measurements are on one scale. A score, a rate of operations or a metric of unknown
    kind is not something the model predicts."""
    if metric in MODEL_METRICS:
        return metric, ""
    if kind not in ("bandwidth", "time"):
        what = "of unknown kind" if kind is None else f"a {kind}"
        return None, (f"the metric {metric!r} is {what}; the model predicts bandwidths and times (declare "
                      "app.metric.unit: MiB/s, GB/s, s, ...)")
    base = "bandwidth_mib_s" if kind == "bandwidth" else "seconds"
    ops = set(phases)
    return (f"{next(iter(ops))}_{base}" if len(ops) == 1 else base), ""

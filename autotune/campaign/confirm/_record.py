"""The record of a confirmation (the study attribute ``confirmation``) and the sentences that report it."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any

MATTERS = 0.05  # the smallest gain worth recommending, unless the campaign says otherwise


@dataclass
class Confirmation:
    """What the confirmation measured and what it recommends (kept as the study attribute ``confirmation``)."""

    rounds: int
    candidates: list[dict[str, Any]]  # {label, trial, config, values (None: not run that round),
    # history: the campaign's earlier runs of the same physical configuration, one list per trial}
    winner: str
    margin: float
    low: float
    high: float
    recommended: dict[str, Any]  # the settings to export (only those that differ from the default and matter)
    dropped: dict[str, str] = field(default_factory=dict)  # setting -> why it is not exported
    ablation: dict[str, dict[str, Any]] = field(default_factory=dict)  # setting -> {values, cost, low, high}
    best_of_n_gain: float | None = None  # what the search claimed over the default (its aggregate of N)
    decision: str = ""  # recommend | below | worse | undecided (empty: recorded before sequential confirmation)
    max_rounds: int = 0
    matters: float = MATTERS
    level: float = 0.95  # the simultaneous level of the intervals
    needed_rounds: int | None = None  # undecided: about how many rounds would resolve ``matters``
    aggregate: str = ""  # the campaign's aggregate of N (what ``best_of_n_gain`` compares)
    bound: float | None = None  # the winner's one-sided 95% lower bound (what decides a recommendation)
    rule: dict[str, Any] | None = None  # the best rule of thumb: {name, label, trial, margin, low, high} over the default
    over_rule: dict[str, Any] | None = None  # the winner over that rule: {margin, low, high, bound} (None: it is the rule)
    recommends_rule: bool = False  # nothing is shown better than the rule, nor the rule worse than the default: the
    # rule is recommended (``rule_reason`` says which of the two cases)
    runs: int = 0  # runs the confirmation made (rounds and ablation)
    max_runs: int | None = None  # its budget of runs (None: rounds and time only)
    note: str = ""  # what the budget left out (e.g. the ablation)

    @property
    def proven(self) -> bool:
        if self.bound is not None:
            return self.winner != "default" and self.decision == "recommend"
        return self.winner != "default" and self.low > 0  # recorded before the one-sided decision

    def lines(self, metric: str) -> list[str]:
        vals = {c["label"]: c["values"] for c in self.candidates}
        hist = {c["label"]: _paired_runs(c.get("history") or [], self.candidates[0].get("history") or [])
                for c in self.candidates}
        most = f" (at most {self.max_rounds})" if self.max_rounds > self.rounds else ""
        runs = f", {self.runs} runs of at most {self.max_runs}" if self.max_runs is not None else ""
        out = [f"confirmation: {self.rounds} interleaved rounds{most}{runs} of {', '.join(vals)} (median {metric}):"]
        for label, v in vals.items():
            ok = [x for x in v if x is not None]
            pooled = (f"; {hist[label][0]} earlier runs of the same physical configuration pooled ({hist[label][1]} of its "
                      f"{hist[label][2]} earlier trials, each paired with one of the default's)" if label != "default" else
                      f"; {hist[label][0]} earlier runs of the same physical configuration") if hist[label][0] else ""
            out.append(f"  {label}: median {statistics.median(ok):.4g} over {len(ok)} rounds{pooled}" if ok
                       else f"  {label}: every run failed")
        agg = f" ({self.aggregate} of N)" if self.aggregate else ""
        claim = f"; the search claimed {self.best_of_n_gain:+.1%}{agg}" if self.best_of_n_gain is not None else ""
        how = f" (20%-trimmed mean of the pairs; earlier trials summarised by their {self.aggregate} of N)" \
            if self.aggregate else ""
        out.append(f"  winner {self.winner}: {self._pm()} over the default{how} ({self.level:.0%} interval "
                   f"{self.low:+.1%} to {self.high:+.1%}, valid under repeated looks) after {self.rounds} rounds{claim}")
        out += self.rule_lines()
        out.append("  " + self.verdict())
        out += self.ablation_lines()
        if self.note:
            out.append(f"  {self.note}")
        return out

    def rule_lines(self) -> list[str]:
        """The best rule of thumb's gain over the default and the winner's over it (empty: no rule ran)."""
        r, o = self.rule, self.over_rule
        if r is None:
            return []
        out = [f"  best rule of thumb {r['name']}" + (": the default configuration here" if r["trial"] < 0 else
               f" ({r['label']}): {r['margin']:+.1%} over the default (95% interval {r['low']:+.1%} to {r['high']:+.1%})")]
        if self.winner != "default":
            out.append(f"  winner {self.winner} is the rule of thumb {r['name']}" if o is None else
                       f"  winner {self.winner} over the rule of thumb {r['name']}: {o['margin']:+.1%} (95% interval "
                       f"{o['low']:+.1%} to {o['high']:+.1%})")
        return out

    def rule_reason(self) -> str:
        """Why the rule of thumb is recommended ('' when it is not)."""
        if not self.recommends_rule or self.rule is None:
            return ""
        name = self.rule["name"]
        floor = f" (at least {self.rule['floor']:+.1%}, one-sided 95%)" if "floor" in self.rule else ""
        near = (f"is shown to cost at most {self.matters:.0%} against the default{floor}"
                if "floor" in self.rule and self.rule["floor"] > -self.matters else
                f"is estimated no worse than the default ({self.rule['margin']:+.1%}, not shown either way)")
        if self.proven:
            return f"the tuned configuration {self.winner} is not shown better than the rule of thumb {name}, which {near}"
        return (f"nothing is shown better than the default; the rule of thumb {name} is what a user would do anyway "
                f"and {near}")

    def rule_refused(self) -> str:
        """Why the rule of thumb is not the fallback of a confirmation that keeps the defaults ('' otherwise)."""
        r = self.rule
        if r is None or self.recommends_rule or self.proven or r["trial"] < 0:
            return ""
        if "floor" not in r:
            return f"the rule of thumb {r['name']} could not be measured"
        return (f"the rule of thumb {r['name']} is estimated worse than the default ({r['margin']:+.1%}) and not shown to "
                f"cost less than {self.matters:.0%} against it (at least {r['floor']:+.1%}, one-sided 95%)")

    def claim(self) -> str:
        """The recommendation's confirmed gain over the default and over the best rule of thumb, in one line."""
        if self.recommends_rule and self.rule is not None:
            r = self.rule
            return (f"recommendation: the rule of thumb {r['name']} ({r['label']}): {r['margin']:+.1%} over the default "
                    f"(95% interval {r['low']:+.1%} to {r['high']:+.1%}); {self.rule_reason()}")
        if not self.proven:
            rule = ""
            if self.rule is not None and self.rule["trial"] >= 0:
                r = self.rule
                rule = (f"; the best rule of thumb {r['name']}: {r['margin']:+.1%} over the default (95% interval "
                        f"{r['low']:+.1%} to {r['high']:+.1%})") + (f"; {self.rule_refused()}" if self.rule_refused() else "")
            return f"recommendation: the system's defaults (no configuration shown better){rule}"
        over = self.over_rule_text()
        return (f"recommendation: {self.winner}: {self.margin:+.1%} over the default (95% interval {self.low:+.1%} to "
                f"{self.high:+.1%})" + (f"; {over}" if over else "; no rule of thumb ran"))

    def over_rule_text(self) -> str:
        """The recommendation's gain over the best rule of thumb, in a few words ('' when no rule ran)."""
        r, o = self.rule, self.over_rule
        if r is None:
            return ""
        if self.recommends_rule or (o is None and self.winner != "default"):
            return f"it is the rule of thumb {r['name']}"
        if self.winner == "default" or o is None:
            return ""
        return (f"{o['margin']:+.1%} over the best rule of thumb {r['name']} (95% interval {o['low']:+.1%} to "
                f"{o['high']:+.1%})")

    def ablation_lines(self) -> list[str]:
        """The ablation as measured: per changed setting of the winner, its cost when reset to the default (with
        the 95% interval), kept or dropped, and why; settings dropped without measuring say why too."""
        if not self.ablation and not self.dropped:
            return []
        rounds = len(next(iter(self.ablation.values()))["values"]) if self.ablation else 0
        out = [f"  ablation of the winner's settings (each reset to its default, {rounds} rounds interleaved with the "
               "winner):" if self.ablation else "  settings of the winner not exported:"]
        for name in sorted(self.ablation):
            out.append(f"    {name}: {self.setting_note(name)}")
        out += [f"    {name}: dropped without measuring: {why}" for name, why in sorted(self.dropped.items())
                if name not in self.ablation]
        return out

    def setting_note(self, name: str) -> str:
        """What the ablation showed about one of the winner's changed settings (kept or dropped, and why)."""
        a = self.ablation.get(name)
        if a is None:
            if name in self.dropped:
                return f"dropped: {self.dropped[name]}"
            if self.recommends_rule:
                return "a setting of the rule of thumb, as its source gives it (not ablated)"
            if self.proven and self._sole(name):
                return "the winner's only changed setting that can act: it carries the confirmed gain"
            return "kept, not ablated: the confirmed gain is the winner's as a whole" if self.proven else "not ablated"
        cost = f"dropping it cost {a['cost']:+.1%} (95% interval {a['low']:+.1%} to {a['high']:+.1%})"
        if name in self.dropped:
            return f"dropped: {self.dropped[name]}"
        if a["low"] > 0:
            return f"kept, shown to matter: {cost}"
        return (f"kept, not shown to matter: {cost}: the interval reaches zero, but dropping it could cost up to "
                f"{a['high']:+.1%}, more than the other settings leave of the confirmed gain")

    def shown_to_matter(self, name: str) -> bool:
        """Whether the ablation showed that ``name`` carries part of the gain (a cost above zero), or it is the
        winner's only changed setting that can act (it carries all of it); a setting kept without an ablation among
        others was not shown to matter on its own."""
        a = self.ablation.get(name)
        return a["low"] > 0 if a is not None else self.proven and not self.recommends_rule and self._sole(name)

    def _sole(self, name: str) -> bool:
        """Whether ``name`` is the only recommended setting that was not dropped."""
        return [k for k in self.recommended if k not in self.dropped] == [name]

    def _pm(self) -> str:
        """The margin, with '± half the interval' where that reads true (an interval narrower than 100%)."""
        half = (self.high - self.low) / 2
        return f"{self.margin:+.1%} ± {half:.1%}" if 0 <= half < 1 else f"{self.margin:+.1%}"

    def verdict(self) -> str:
        """What could and could not be shown, in one sentence."""
        n = self.rounds
        if self.proven and self.recommends_rule and self.rule is not None and self.over_rule is not None:
            r, o = self.rule, self.over_rule
            return (f"shown: {self.winner} beats the default by {self._pm()}, but it is not shown better than the rule "
                    f"of thumb {r['name']} ({o['margin']:+.1%}, 95% interval {o['low']:+.1%} to {o['high']:+.1%}): "
                    f"recommended: the rule of thumb {r['name']}, what you would have tried anyway")
        if self.recommends_rule and self.rule is not None:  # nothing shown better than the default
            r = self.rule
            return (f"not shown: no candidate beats the default after {n} rounds (the rule of thumb {r['name']}: "
                    f"{r['margin']:+.1%}, 95% interval {r['low']:+.1%} to {r['high']:+.1%}): recommended: the rule "
                    f"of thumb {r['name']}, what you would have tried anyway, shown to cost at most {self.matters:.0%} "
                    "against the default")
        if self.proven:
            at_least = f" (at least {self.bound:+.1%}, one-sided 95%)" if self.bound is not None else ""
            return f"shown: {self.winner} beats the default by {self._pm()}{at_least}"
        if self.decision == "below":
            return (f"shown: no candidate gains {self.matters:.0%} or more over the default after {n} rounds: "
                    "keep the system's defaults")
        if self.decision == "worse":
            return f"shown: the default is better after {n} rounds: keep the system's defaults"
        half = max(abs(self.high), abs(self.low)) if self.decision == "undecided" else 0.0
        need = (f"; about {self.needed_rounds} rounds would be needed to resolve {self.matters:.0%}"
                if self.needed_rounds else "")
        what = (f"no difference larger than {half:.0%} detectable at this noise after {n} rounds{need}"
                if half else "no configuration beat the default beyond the jitter")
        return f"{what}: keep the system's defaults"


def _paired_runs(blocks: list[list[float]], default: list[list[float]]) -> tuple[int, int, int]:
    """(runs, trials, all trials) of ``blocks`` that the confirmation paired with the default's trials (``block_differences``:
    the i-th non-empty trial with the i-th, cut to their common number of runs); the default's own: all of them."""
    if blocks is default:
        return sum(len(b) for b in blocks), len(blocks), len(blocks)
    pairs = list(zip([b for b in blocks if b], [b for b in default if b], strict=False))
    return sum(min(len(x), len(y)) for x, y in pairs), len(pairs), len([b for b in blocks if b])
